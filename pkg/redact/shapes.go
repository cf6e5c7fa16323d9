package redact

import (
	"regexp"
	"strings"
	"sync"
)

// Shapes replaces what looks like a credential in s with [REDACTED], whether or not any
// Redactor knows its value: text from a credential plugin may quote a token before mvpctl has
// learned it (a refresh token it never returns, say). The shapes:
//
//   - a JWT (OIDC ID tokens, service-account tokens, Azure and many OIDC access tokens);
//   - the credential after "Bearer " or "Basic ";
//   - the value assigned to a name that says it is secret (token, secret, password, passwd,
//     credential, api key, private key, access key, client key), as in TOKEN=…, "token": "…",
//     password: …;
//   - well-known token prefixes: EKS (k8s-aws-v1.…), Google (ya29.…), GitHub (ghp_…),
//     AWS access key IDs (AKIA…), Kubernetes bootstrap tokens (abcdef.0123456789abcdef);
//   - a word of 32 or more token characters that mixes upper case, lower case and digits, as
//     random base64 does (URLs, host names, UUIDs and hex digests are left alone).
//
// Short words such as a device code ("ABCD-1234") and sign-in URLs stay readable.
func Shapes(s string) string {
	for _, sh := range shapes() {
		s = sh.re.ReplaceAllString(s, sh.repl)
	}
	return replaceRandomWords(s)
}

type shape struct {
	re   *regexp.Regexp
	repl string
}

var shapes = sync.OnceValue(func() []shape {
	const secretName = `(?i:[A-Za-z0-9_.-]*(?:token|secret|password|passwd|credential|api[_-]?key|private[_-]?key|access[_-]?key|client[_-]?key)[A-Za-z0-9_.-]*)`
	return []shape{
		{regexp.MustCompile(`eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*`), "[REDACTED]"},
		{regexp.MustCompile(`(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=-]{6,}`), "$1$2[REDACTED]"},
		// name=value, name: value, "name": "value"; the value ends at a quote, space, comma or
		// semicolon. "[REDACTED]" itself is left as it is.
		{regexp.MustCompile(`(` + secretName + `["']?\s*[:=]\s*["']?)([^\s"',;\[][^\s"',;]*)`), "$1[REDACTED]"},
		{regexp.MustCompile(`\bk8s-aws-v1\.[A-Za-z0-9_=-]+`), "[REDACTED]"},
		{regexp.MustCompile(`\bya29\.[A-Za-z0-9_.-]+`), "[REDACTED]"},
		{regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{30,}`), "[REDACTED]"},
		{regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`), "[REDACTED]"},
		{regexp.MustCompile(`\b[a-z0-9]{6}\.[a-z0-9]{16}\b`), "[REDACTED]"},
	}
})

// minRandomWord is the length from which a word that mixes upper case, lower case and digits
// is taken for a credential.
const minRandomWord = 32

// replaceRandomWords redacts the words of s (runs of base64 and base64url characters) that are
// at least minRandomWord long and mix upper case, lower case and digits.
func replaceRandomWords(s string) string {
	isWord := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("+/=_-", c) >= 0
	}
	var b strings.Builder
	from := 0 // s[from:] is not written yet
	for i := 0; i < len(s); {
		if !isWord(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isWord(s[j]) {
			j++
		}
		if w := s[i:j]; len(w) >= minRandomWord && mixed(w) {
			b.WriteString(s[from:i])
			b.WriteString("[REDACTED]")
			from = j
		}
		i = j
	}
	if from == 0 {
		return s
	}
	b.WriteString(s[from:])
	return b.String()
}

func mixed(w string) bool {
	var upper, lower, digit bool
	for _, r := range w {
		switch {
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= '0' && r <= '9':
			digit = true
		}
	}
	return upper && lower && digit
}
