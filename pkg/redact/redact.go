// Package redact keeps credentials out of mvpctl's output, logs and errors.
package redact

import (
	"sort"
	"strings"

	"k8s.io/client-go/rest"
)

// Redactor removes credential values from text. mvpctl never puts request headers or
// credentials into its messages; this is the second line of defence against a library error
// (an exec plugin's output, an auth provider's message) that quotes one.
type Redactor struct {
	secrets []string
}

// minSecretLen keeps short values (a one-letter password) from blanking ordinary words.
const minSecretLen = 6

// Add registers the credentials of cfg: token, password, client key and certificate, exec
// plugin environment, auth-provider settings.
func (r *Redactor) Add(cfg *rest.Config) {
	if cfg == nil {
		return
	}
	vals := []string{cfg.BearerToken, cfg.Password, string(cfg.TLSClientConfig.KeyData), string(cfg.TLSClientConfig.CertData)}
	if cfg.ExecProvider != nil {
		for _, e := range cfg.ExecProvider.Env {
			vals = append(vals, e.Value)
		}
	}
	if cfg.AuthProvider != nil {
		for _, v := range cfg.AuthProvider.Config {
			vals = append(vals, v)
		}
	}
	for _, v := range vals {
		v = strings.TrimSpace(v)
		if len(v) >= minSecretLen {
			r.secrets = append(r.secrets, v)
		}
		// PEM blocks may be quoted line by line; redact their base64 lines too.
		for _, line := range strings.Split(v, "\n") {
			if line = strings.TrimSpace(line); len(line) >= 16 && !strings.HasPrefix(line, "-----") {
				r.secrets = append(r.secrets, line)
			}
		}
	}
	// Longest first, so a secret containing another is removed whole.
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
}

// Clean replaces every registered credential in s with [REDACTED].
func (r *Redactor) Clean(s string) string {
	for _, v := range r.secrets {
		s = strings.ReplaceAll(s, v, "[REDACTED]")
	}
	return s
}
