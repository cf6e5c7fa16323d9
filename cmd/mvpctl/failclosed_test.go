package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFailClosed: a command that could read no apiserver, was given traffic with nothing to
// replay, or rests on assumptions never exits 0; the reason is one line on stderr, and the
// kubeconfig's token appears nowhere.
func TestFailClosed(t *testing.T) {
	const token = "failclosed-secret-token-5f2c9a"
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := write("empty.kubeconfig", "")
	// Port 1 on loopback: nothing listens, the connection is refused at once.
	refused := write("refused.kubeconfig", `apiVersion: v1
kind: Config
clusters:
- cluster: {server: "https://127.0.0.1:1"}
  name: c
users:
- name: u
  user: {token: `+token+`}
contexts:
- context: {cluster: c, user: u}
  name: ctx
current-context: ctx
`)
	emptyLog := write("empty.jsonl", "")
	onlyHealth := write("health.txt", "GET /healthz\nGET /readyz\n")
	allDown := "testdata/snapshots/all-down.yaml"
	skew := "../../examples/skew.yaml"

	tests := []struct {
		name       string
		kubeconfig string
		args       []string
		code       int
		want       string
	}{
		{"no kubeconfig: snapshot", empty, []string{"snapshot"}, ExitError, "no kubeconfig"},
		{"no kubeconfig: routes", empty, []string{"routes"}, ExitError, "no kubeconfig"},
		{"no kubeconfig: explain", empty, []string{"explain", "GET", "/api/v1/pods"}, ExitError, "no kubeconfig"},
		{"no kubeconfig: simulate", empty, []string{"simulate", "upgrade", "--to", "1.37"}, ExitError, "no kubeconfig"},
		{"no kubeconfig: preflight", empty, []string{"preflight", "--to", "1.37"}, ExitError, "no kubeconfig"},
		{"no kubeconfig: discovery diff", empty, []string{"discovery", "diff"}, ExitError, "no kubeconfig"},
		{"no kubeconfig: discovery expected", empty, []string{"discovery", "expected"}, ExitError, "no kubeconfig"},
		{"no kubeconfig: probe", empty, []string{"probe"}, ExitError, "no kubeconfig"},
		{"no kubeconfig: traffic", empty, []string{"traffic"}, ExitError, "no kubeconfig"},

		{"refused: snapshot", refused, []string{"snapshot", "--timeout", "2s"}, ExitError, "no apiserver could be read (127.0.0.1:1: GET https://127.0.0.1:1/version: connection refused"},
		{"refused: routes", refused, []string{"routes", "--timeout", "2s"}, ExitError, "no apiserver could be read"},
		{"refused: simulate", refused, []string{"simulate", "upgrade", "--to", "1.37", "--timeout", "2s"}, ExitError, "no apiserver could be read"},
		{"refused: preflight", refused, []string{"preflight", "--to", "1.37", "--timeout", "2s"}, ExitError, "no apiserver could be read"},
		{"refused: discovery diff", refused, []string{"discovery", "diff", "--timeout", "2s"}, ExitError, "no apiserver could be read"},
		{"refused: probe", refused, []string{"probe", "--timeout", "2s"}, ExitError, "no apiserver could be read"},
		{"refused: traffic", refused, []string{"traffic", "--timeout", "2s"}, ExitError, "no apiserver could be read"},

		{"all down: routes", empty, []string{"routes", "--snapshot", allDown}, ExitError, "the snapshot holds no evidence"},
		{"all down: simulate", empty, []string{"simulate", "upgrade", "--snapshot", allDown, "--to", "1.37"}, ExitError, "the snapshot holds no evidence"},
		{"all down: preflight", empty, []string{"preflight", "--snapshot", allDown, "--to", "1.37"}, ExitError, "the snapshot holds no evidence"},
		{"all down: discovery diff", empty, []string{"discovery", "diff", "--snapshot", allDown}, ExitError, "the snapshot holds no evidence"},

		{"snapshot and --endpoint", empty, []string{"routes", "--snapshot", skew, "--endpoint", "https://10.0.0.1:6443"}, ExitError, "--endpoint cannot be used with --snapshot"},
		{"snapshot and --contexts", empty, []string{"explain", "--snapshot", skew, "--contexts", "a,b", "GET", "/api/v1/pods"}, ExitError, "--contexts cannot be used with --snapshot"},

		{"empty audit log: preflight", empty, []string{"preflight", "--servers", "a=1.36,b=1.36", "--proxy", "configured", "--to", "1.37", "--audit-log", emptyLog}, ExitError, "no resource request to replay"},
		{"empty audit log: simulate", empty, []string{"simulate", "upgrade", "--servers", "a=1.36,b=1.36", "--proxy", "configured", "--to", "1.37", "--audit-log", emptyLog}, ExitError, "no resource request to replay"},
		{"only non-resource requests", empty, []string{"preflight", "--servers", "a=1.36,b=1.36", "--proxy", "configured", "--to", "1.37", "--requests", onlyHealth}, ExitError, "no resource request to replay (2 non-resource"},

		{"assumed configuration: simulate", empty, []string{"simulate", "upgrade", "--servers", "a=1.37,b=1.37", "--to", "1.37"}, ExitIncomplete, "rests on 1 assumption(s)"},
		{"assumed configuration: preflight", empty, []string{"preflight", "--servers", "a=1.37,b=1.37", "--to", "1.37"}, ExitIncomplete, "rests on 1 assumption(s)"},

		{"subcommand typo: simulate", empty, []string{"simulate", "upgrad"}, ExitError, `unknown command "upgrad"`},
		{"subcommand typo: profiles", empty, []string{"profiles", "lst"}, ExitError, `unknown command "lst"`},
		{"--fail-on value", empty, []string{"preflight", "--servers", "a=1.36", "--to", "1.37", "--fail-on", "maybe"}, ExitError, `--fail-on "maybe": want one of`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", tt.kubeconfig)
			t.Setenv("HOME", dir)
			out, errOut, code := run(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tt.code, errOut)
			}
			lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
			var reason []string
			for _, l := range lines {
				if strings.HasPrefix(l, "error: ") || (tt.code != ExitError && strings.HasPrefix(l, "warning: ") && strings.Contains(l, tt.want)) {
					reason = append(reason, l)
				}
			}
			if len(reason) != 1 || !strings.Contains(reason[0], tt.want) {
				t.Errorf("stderr %q: want one line with %q", errOut, tt.want)
			}
			if tt.code == ExitError && len(lines) > 2 {
				t.Errorf("stderr has %d lines, want the one reason (and at most a usage hint): %q", len(lines), errOut)
			}
			if tt.code == ExitError && out != "" {
				t.Errorf("stdout %q: nothing may be printed on an error", out)
			}
			if strings.Contains(out+errOut, token) {
				t.Error("the kubeconfig's token appears in the output")
			}
		})
	}
}

// TestTrustWarnings: TLS verification off, or a plain-HTTP server, is said once on stderr by
// every command that connects, however the command ends.
func TestTrustWarnings(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := func(name, cluster string) string {
		p := filepath.Join(dir, name)
		content := "apiVersion: v1\nkind: Config\nclusters:\n- cluster: " + cluster + "\n  name: c\nusers:\n- name: u\n  user: {token: trust-warning-token-0123}\ncontexts:\n- context: {cluster: c, user: u}\n  name: ctx\ncurrent-context: ctx\n"
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	insecure := kubeconfig("insecure", `{server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}`)
	plain := kubeconfig("plain", `{server: "http://127.0.0.1:1"}`)
	commands := [][]string{
		{"snapshot"}, {"routes"}, {"explain", "GET", "/api/v1/pods"}, {"discovery", "diff"},
		{"simulate", "upgrade", "--to", "1.37"}, {"preflight", "--to", "1.37"}, {"probe"}, {"traffic"}, {"watch"},
	}
	for _, kc := range []struct{ file, want string }{{insecure, "warning: TLS verification is off"}, {plain, "warning: plain HTTP to 127.0.0.1"}} {
		for _, args := range commands {
			t.Run(filepath.Base(kc.file)+"/"+strings.Join(args, " "), func(t *testing.T) {
				t.Setenv("KUBECONFIG", kc.file)
				_, errOut, code := run(t, append(args, "--timeout", "2s")...)
				if n := strings.Count(errOut, kc.want); n != 1 || code != ExitError {
					t.Errorf("exit %d, %d warning(s) %q in stderr %q", code, n, kc.want, errOut)
				}
			})
		}
	}
}
