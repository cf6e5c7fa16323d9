package kubeflags

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// TestKubectlFlags: every connection flag kubectl users rely on exists, with kubectl's name
// and shorthand, and reaches the client config.
func TestKubectlFlags(t *testing.T) {
	dir := t.TempDir()
	kc := filepath.Join(dir, "config")
	if err := os.WriteFile(kc, []byte(`apiVersion: v1
kind: Config
clusters:
- {name: c1, cluster: {server: "https://10.0.0.1:6443"}}
- {name: c2, cluster: {server: "https://10.0.0.2:6443"}}
users:
- {name: u1, user: {token: from-kubeconfig}}
- {name: u2, user: {token: other}}
contexts:
- {name: one, context: {cluster: c1, user: u1, namespace: ns1}}
- {name: two, context: {cluster: c2, user: u2}}
current-context: one
`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ca.crt", "client.crt", "client.key"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f := New()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	f.AddFlags(fs)
	args := []string{"--kubeconfig", kc, "--context", "two", "--cluster", "c1", "--user", "u1",
		"-s", "https://10.9.9.9:6443", "--token", "from-flag", "--as", "alice", "--as-group", "devs", "--as-group", "ops", "--as-uid", "1234",
		"--certificate-authority", filepath.Join(dir, "ca.crt"), "--tls-server-name", "kubernetes.default.svc",
		"--request-timeout", "7s", "-n", "team-a"}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	cfg, err := f.ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case cfg.Host != "https://10.9.9.9:6443":
		t.Errorf("host %q", cfg.Host)
	case cfg.BearerToken != "from-flag":
		t.Errorf("token %q", cfg.BearerToken)
	case cfg.Impersonate.UserName != "alice" || len(cfg.Impersonate.Groups) != 2 || cfg.Impersonate.UID != "1234":
		t.Errorf("impersonation %+v", cfg.Impersonate)
	case cfg.TLSClientConfig.ServerName != "kubernetes.default.svc" || cfg.TLSClientConfig.CAFile != filepath.Join(dir, "ca.crt"):
		t.Errorf("TLS %+v", cfg.TLSClientConfig)
	case cfg.Timeout != 7*time.Second:
		t.Errorf("timeout %s", cfg.Timeout)
	}
	if ns, _, _ := f.ToRawKubeConfigLoader().Namespace(); ns != "team-a" {
		t.Errorf("namespace %q", ns)
	}
	if f.ContextOverride() != "two" || f.ServerOverride() != "https://10.9.9.9:6443" {
		t.Errorf("overrides %q %q", f.ContextOverride(), f.ServerOverride())
	}
	// Client certificate flags, and --insecure-skip-tls-verify (which needs no CA).
	f2 := New()
	fs2 := pflag.NewFlagSet("test", pflag.ContinueOnError)
	f2.AddFlags(fs2)
	if err := fs2.Parse([]string{"--kubeconfig", kc, "--client-certificate", filepath.Join(dir, "client.crt"), "--client-key", filepath.Join(dir, "client.key"), "--insecure-skip-tls-verify"}); err != nil {
		t.Fatal(err)
	}
	cfg2, err := f2.ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg2.Host != "https://10.0.0.1:6443" || cfg2.TLSClientConfig.CertFile != filepath.Join(dir, "client.crt") || cfg2.TLSClientConfig.KeyFile != filepath.Join(dir, "client.key") || !cfg2.TLSClientConfig.Insecure {
		t.Errorf("config %+v", cfg2.TLSClientConfig)
	}
}
