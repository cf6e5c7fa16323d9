// Package redact keeps credentials out of mvpctl's output, logs and errors.
package redact

import (
	"context"
	"encoding/base64"
	"net/http"
	"sort"
	"strings"
	"sync"

	"k8s.io/client-go/rest"
)

// Redactor removes credential values from text. mvpctl never puts request headers or
// credentials into its messages; this is the second line of defence against a library error
// (an exec plugin's output, an auth provider's message) that quotes one.
//
// Safe for concurrent use: requests to several servers learn credentials at once.
type Redactor struct {
	mu      sync.RWMutex
	secrets []string
	known   map[string]bool // secrets, as a set: a token is learned again at every request
	// tokens are the bearer tokens among secrets: a server that echoes the start of one
	// (a 12-character prefix, as some log it) has it redacted too (echo.go).
	tokens []string
}

// Process holds every credential any Redactor of the process was given or learned, for text
// no single Redactor sees: what a credential plugin or a library writes to the process's
// stderr (cmd/mvpctl's stderr guard cleans it with Process, then Shapes).
var Process Redactor

// minSecretLen keeps short values (a one-letter password) from blanking ordinary words.
const minSecretLen = 6

// Add registers the credentials of cfg: token, password, client key and certificate, exec
// plugin environment, auth-provider settings.
func (r *Redactor) Add(cfg *rest.Config) {
	if cfg == nil {
		return
	}
	r.addToken(cfg.BearerToken)
	vals := []string{cfg.BearerToken, cfg.Password, string(cfg.TLSClientConfig.KeyData), string(cfg.TLSClientConfig.CertData)}
	if cfg.Username != "" || cfg.Password != "" {
		// A server that echoes the Authorization header shows the pair in base64.
		vals = append(vals, base64.StdEncoding.EncodeToString([]byte(cfg.Username+":"+cfg.Password)))
	}
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
	r.addValues(vals...)
}

func (r *Redactor) addValues(vals ...string) {
	if r != &Process {
		Process.addValues(vals...)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	added := false
	add := func(v string) {
		if !r.known[v] {
			if r.known == nil {
				r.known = map[string]bool{}
			}
			r.known[v] = true
			r.secrets = append(r.secrets, v)
			added = true
		}
	}
	for _, v := range vals {
		v = strings.TrimSpace(v)
		if len(v) >= minSecretLen {
			add(v)
		}
		// PEM blocks may be quoted line by line; redact their base64 lines too.
		for _, line := range strings.Split(v, "\n") {
			if line = strings.TrimSpace(line); len(line) >= 16 && !strings.HasPrefix(line, "-----") {
				add(line)
			}
		}
	}
	if added {
		// Longest first, so a secret containing another is removed whole.
		sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
	}
}

// AddAuthorization registers the credential of an Authorization header value: a bearer token,
// or a basic-auth pair (its base64 form and its password).
func (r *Redactor) AddAuthorization(h string) {
	scheme, cred, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok {
		r.addValues(h)
		return
	}
	cred = strings.TrimSpace(cred)
	if strings.EqualFold(scheme, "bearer") {
		r.addToken(cred)
	}
	vals := []string{cred}
	if strings.EqualFold(scheme, "basic") {
		if raw, err := base64.StdEncoding.DecodeString(cred); err == nil {
			if _, pass, ok := strings.Cut(string(raw), ":"); ok {
				vals = append(vals, pass)
			}
		}
	}
	r.addValues(vals...)
}

// Learn wraps a transport so that every Authorization header it sends is registered before
// the request leaves: credentials mvpctl never sees in the kubeconfig (an exec plugin's or an
// auth provider's token) are then redacted like the others. Use it with rest.Config.Wrap;
// client-go sets the header in wrappers outside this one.
func (r *Redactor) Learn(rt http.RoundTripper) http.RoundTripper {
	return learningTransport{r: r, next: rt}
}

type learningTransport struct {
	r    *Redactor
	next http.RoundTripper
}

func (t learningTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if m, ok := req.Context().Value(sentKey{}).(*sentMarker); ok {
		m.mu.Lock()
		m.sent = true
		m.mu.Unlock()
	}
	for _, h := range req.Header.Values("Authorization") {
		t.r.AddAuthorization(h)
	}
	return t.next.RoundTrip(req)
}

type sentKey struct{}

type sentMarker struct {
	mu   sync.Mutex
	sent bool
}

// WithSentMarker returns a context whose requests Sent reports on: whether one got past the
// credential wrappers (an exec plugin) to the transport Learn wraps.
func WithSentMarker(ctx context.Context) context.Context {
	return context.WithValue(ctx, sentKey{}, &sentMarker{})
}

// Sent reports whether a request with ctx (from WithSentMarker) reached Learn's transport.
func Sent(ctx context.Context) bool {
	m, ok := ctx.Value(sentKey{}).(*sentMarker)
	if !ok {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sent
}

// Clean replaces every registered credential in s with [REDACTED]: as it is, JSON-escaped
// (a server's JSON message quoting it), and a bearer token's start of tokenPrefix
// characters or more.
func (r *Redactor) Clean(s string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if u, ok := unescapeJSON(s); ok && r.holdsSecret(u) {
		s = u // the escaped copy is shown unescaped: output escapes what needs it
	}
	for _, v := range r.secrets {
		s = strings.ReplaceAll(s, v, "[REDACTED]")
	}
	for _, t := range r.tokens {
		s = redactPrefixes(s, t)
	}
	return s
}
