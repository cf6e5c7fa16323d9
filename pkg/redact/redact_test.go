package redact

import (
	"testing"

	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

func TestRedactor(t *testing.T) {
	var r Redactor
	r.Add(nil)
	r.Add(&rest.Config{BearerToken: "abcdefghij", Username: "ok", Password: "p4ssw0rd-long",
		ExecProvider:    &clientcmdapi.ExecConfig{Env: []clientcmdapi.ExecEnvVar{{Name: "TOKEN", Value: "exec-env-secret"}}},
		TLSClientConfig: rest.TLSClientConfig{KeyData: []byte("-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIm3yJ0bHj0mL8Tq0Yb7b3Xx\n-----END EC PRIVATE KEY-----\n")}})
	tests := map[string]string{
		"token abcdefghij and pw p4ssw0rd-long, short pw ok": "token [REDACTED] and pw [REDACTED], short pw ok",
		"exec said exec-env-secret":                          "exec said [REDACTED]",
		"key line MHcCAQEEIIm3yJ0bHj0mL8Tq0Yb7b3Xx quoted":   "key line [REDACTED] quoted",
	}
	for in, want := range tests {
		if got := r.Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestEchoedTokenShapes: a bearer token a server echoes in part (its first 12 characters or
// more) or JSON-escaped is redacted too.
func TestEchoedTokenShapes(t *testing.T) {
	const token = "k8s-token/ABCDEFGHIJKLMNOPQRSTUVWXYZ+0123456789"
	var r Redactor
	r.AddAuthorization("Bearer " + token)
	for in, want := range map[string]string{
		"invalid token k8s-token/AB…":                                         "invalid token [REDACTED]…",
		"invalid token k8s-token/ABCDEFGH, retry":                             "invalid token [REDACTED], retry",
		`{"message":"bad k8s-token\/ABCDEFGHIJKLMNOPQRSTUVWXYZ+0123456789"}`:  `{"message":"bad [REDACTED]"}`,
		`bad \u006b\u0038s-token\/ABCDEFGHIJKLMNOPQRSTUVWXYZ\u002b0123456789`: `bad [REDACTED]`,
		"k8s-token/A is 11 characters: kept":                                  "k8s-token/A is 11 characters: kept",
		`escapes without a token stay: \u001b`:                                `escapes without a token stay: \u001b`,
	} {
		if got := r.Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}
