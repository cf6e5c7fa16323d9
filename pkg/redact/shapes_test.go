package redact

import (
	"strings"
	"testing"
)

// TestShapes: every secret shape is redacted, and what a sign-in prompt needs (its URL, a
// device code, ordinary words, hex digests, UUIDs) is left readable.
func TestShapes(t *testing.T) {
	const jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJl"
	tests := []struct{ in, want string }{
		{"id token " + jwt + " ok", "id token [REDACTED] ok"},
		{"Authorization: Bearer opaque-token-123", "Authorization: Bearer [REDACTED]"},
		{"basic dXNlcjpwYXNz", "basic [REDACTED]"},
		{"debug: SECRET_ENV=hunter2-plugin-secret", "debug: SECRET_ENV=[REDACTED]"},
		{`{"kind":"ExecCredential","status":{"token":"abc.def-123"}}`, `{"kind":"ExecCredential","status":{"token":"[REDACTED]"}}`},
		{"password: p4ss, user: me", "password: [REDACTED], user: me"},
		{"client_key = 'k3y' api-key=xyz", "client_key = '[REDACTED]' api-key=[REDACTED]"},
		{"token=[REDACTED]", "token=[REDACTED]"},
		{"eks k8s-aws-v1.aHR0cHM6Ly9zdHMuYW1hem9uYXdzLmNvbS8_QWN0aW9u", "eks [REDACTED]"},
		{"gke ya29.a0AfB_byC-xyz", "gke [REDACTED]"},
		{"gh ghp_0123456789abcdefghijABCDEFGHIJ0123456789", "gh [REDACTED]"},
		{"aws AKIAIOSFODNN7EXAMPLE", "aws [REDACTED]"},
		{"bootstrap abcdef.0123456789abcdef", "bootstrap [REDACTED]"},
		{"random Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MEFCQ0RFRkdI end", "random [REDACTED] end"},
		// Left alone.
		{"To sign in, use a web browser to open the page https://microsoft.com/devicelogin and enter the code ABCD-1234 to authenticate.",
			"To sign in, use a web browser to open the page https://microsoft.com/devicelogin and enter the code ABCD-1234 to authenticate."},
		{"open https://login.microsoftonline.com/common/oauth2/deviceauth", "open https://login.microsoftonline.com/common/oauth2/deviceauth"},
		{"sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"},
		{"tenant 72f988bf-86f1-41af-91ab-2d7cd011db47", "tenant 72f988bf-86f1-41af-91ab-2d7cd011db47"},
		{"a token is needed; the credential plugin failed", "a token is needed; the credential plugin failed"},
		{"invalid utf-8 \xff\xfe stays", "invalid utf-8 \xff\xfe stays"},
	}
	for _, tt := range tests {
		if got := Shapes(tt.in); got != tt.want {
			t.Errorf("Shapes(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// TestProcessLearnsOnce: what any Redactor is given or learns is redacted by Process too, and
// a token learned at every request is kept once (a long watch would otherwise grow the list,
// and the time Clean takes, with every request).
func TestProcessLearnsOnce(t *testing.T) {
	var r Redactor
	for range 1000 {
		r.AddAuthorization("Bearer learned-process-token-42")
	}
	if len(r.secrets) != 1 {
		t.Errorf("%d secrets kept for one token", len(r.secrets))
	}
	if got := Process.Clean("x learned-process-token-42 y"); strings.Contains(got, "learned") {
		t.Errorf("Process.Clean left the token: %q", got)
	}
}
