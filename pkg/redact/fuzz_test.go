package redact

import (
	"encoding/base64"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
)

// FuzzRedactor plants a token, a basic-auth pair and an Authorization header learned from a
// request into arbitrary text and checks that none survives Clean.
func FuzzRedactor(f *testing.F) {
	f.Add("denied for %s", "tok-0123456789abcdef", "admin", "hunter2hunter2")
	f.Add("<html><title>%s</title></html>", "eyJhbGciOiJSUzI1NiJ9.x.y", "u", "pässwörd-ünicode")
	f.Add("%s%s%s", "aaaaaaaaaaaa", "a", "aaaaaaaaaaaaaaaa")
	f.Fuzz(func(t *testing.T, template, token, user, password string) {
		if len(strings.TrimSpace(token)) < minSecretLen || len(strings.TrimSpace(password)) < minSecretLen ||
			strings.TrimSpace(token) != token || strings.TrimSpace(password) != password || strings.Contains(password, ":") || strings.Contains(user, ":") {
			return // too short to redact without blanking ordinary words, or not a credential shape (RFC 7617: no colon in a user-id)
		}
		var r Redactor
		r.Add(&rest.Config{BearerToken: token, Username: user, Password: password})
		basic := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
		var learned Redactor
		learned.AddAuthorization("Bearer " + token)
		learned.AddAuthorization("Basic " + basic)
		for _, red := range []*Redactor{&r, &learned} {
			for _, secret := range []string{token, password, basic} {
				text := strings.ReplaceAll(template, "%s", secret) + " " + secret
				if got := red.Clean(text); strings.Contains(got, secret) {
					t.Fatalf("secret %q survives in %q", secret, got)
				}
			}
		}
	})
}
