package redact

import (
	"strconv"
	"strings"
)

// tokenPrefix is the shortest start of a bearer token that is redacted where it appears: a
// server or a proxy that logs "token abcdefghijkl…" has told a twelfth of a 150-character
// token, and a third of a bootstrap token.
const tokenPrefix = 12

// addToken registers a bearer token (r.mu not held) for redactPrefixes.
func (r *Redactor) addToken(t string) {
	t = strings.TrimSpace(t)
	if len(t) <= tokenPrefix {
		return
	}
	if r != &Process {
		Process.addToken(t)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range r.tokens {
		if k == t {
			return
		}
	}
	r.tokens = append(r.tokens, t)
}

// redactPrefixes replaces every run of s that is the start of token, tokenPrefix characters
// or longer, with [REDACTED].
func redactPrefixes(s, token string) string {
	head := token[:tokenPrefix]
	if !strings.Contains(s, head) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, head)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		n := tokenPrefix
		for i+n < len(s) && n < len(token) && s[i+n] == token[n] {
			n++
		}
		b.WriteString(s[:i])
		b.WriteString("[REDACTED]")
		s = s[i+n:]
	}
}

// holdsSecret reports whether s holds a registered credential or a token's start (r.mu held).
func (r *Redactor) holdsSecret(s string) bool {
	for _, v := range r.secrets {
		if strings.Contains(s, v) {
			return true
		}
	}
	for _, t := range r.tokens {
		if strings.Contains(s, t[:tokenPrefix]) {
			return true
		}
	}
	return false
}

// unescapeJSON undoes the escapes of JSON strings in s (\/, \", \uXXXX ...) wherever they
// are; ok is false when s holds none.
func unescapeJSON(s string) (string, bool) {
	if !strings.Contains(s, `\`) {
		return s, false
	}
	var b strings.Builder
	changed := false
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		if s[i+1] == '/' { // JSON's own escape; strconv knows Go's, which JSON's others are
			b.WriteByte('/')
			i++
			changed = true
			continue
		}
		if r, _, tail, err := strconv.UnquoteChar(s[i:], '"'); err == nil {
			b.WriteRune(r)
			i = len(s) - len(tail) - 1
			changed = true
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String(), changed
}
