package main

import (
	"regexp"
	"strings"
	"testing"
)

var flagInText = regexp.MustCompile(`(^|[\s(,])(--[a-z][a-z-]*)`)

// TestNoKubeconfigHints: without a kubeconfig every command that needs a cluster says so in
// one line that names only flags the command has, and nothing of client-go's start-up
// ("try setting KUBERNETES_MASTER") comes before it.
func TestNoKubeconfigHints(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	for _, tc := range []struct {
		args []string
		want string // in the one line
	}{
		{[]string{"probe", "--snapshot", "../../examples/skew.yaml"}, "probe sends requests to the apiservers, even those of a --snapshot file"},
		{[]string{"probe"}, "point at one"},
		{[]string{"traffic", "--snapshot", "../../examples/skew.yaml"}, "traffic reads the /metrics of the apiservers"},
		{[]string{"snapshot"}, "point at one"},
		{[]string{"profiles", "record", "-f", "x.json"}, "point at one"},
		{[]string{"routes"}, "or pass --snapshot FILE"},
		{[]string{"explain", "jobs"}, "or pass --snapshot FILE"},
		{[]string{"discovery", "diff"}, "or pass --snapshot FILE"},
		{[]string{"simulate", "upgrade", "--to", "1.37"}, "or pass --snapshot FILE or --servers NAME=VERSION"},
		{[]string{"preflight", "--to", "1.37"}, "or pass --snapshot FILE or --servers NAME=VERSION"},
		{[]string{"watch"}, "point at one"},
		{[]string{"routes", "-w"}, "point at one"},
	} {
		name := strings.Join(tc.args, " ")
		_, stderr, code := run(t, tc.args...)
		if code != ExitError || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "error: no kubeconfig") || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and one line with %q", name, code, stderr, tc.want)
		}
		help, _, _ := run(t, append(tc.args[:len(tc.args):len(tc.args)], "--help")...)
		for _, m := range flagInText.FindAllStringSubmatch(stderr, -1) {
			if f := m[2]; f != "--kubeconfig" && f != "--server" && !regexp.MustCompile(`(^|[\s,])`+regexp.QuoteMeta(f)+`\b`).MatchString(help) {
				t.Errorf("%s: the error names %s, which the command does not have: %s", name, f, stderr)
			}
		}
	}
}

// TestLiveFlagsRefusedOffline: a flag that only a live read uses — a connection flag
// (--server, --context, ...) or a discovery flag (--endpoint, --timeout, ...) — is refused
// with the reason when no cluster is read (--snapshot, --servers), not silently ignored;
// probe and traffic send requests to a snapshot's servers, so the connection flags apply.
func TestLiveFlagsRefusedOffline(t *testing.T) {
	const skew = "../../examples/skew.yaml"
	for _, tc := range []struct {
		args []string
		want string // "" when the flags are taken
	}{
		{[]string{"routes", "--snapshot", skew, "--server", "https://127.0.0.1:1"}, "--server cannot be used with --snapshot: it applies to a read of the live cluster"},
		{[]string{"explain", "--snapshot", skew, "--context", "nosuch", "jobs"}, "--context cannot be used with --snapshot"},
		{[]string{"routes", "--snapshot", skew, "--token", "x", "--as", "me"}, "--as, --token cannot be used with --snapshot: they apply"},
		{[]string{"routes", "--snapshot", skew, "--endpoint", "https://127.0.0.1:1"}, "--endpoint cannot be used with --snapshot"},
		{[]string{"discovery", "diff", "--snapshot", skew, "--insecure-skip-tls-verify"}, "--insecure-skip-tls-verify cannot be used with --snapshot"},
		{[]string{"simulate", "upgrade", "--snapshot", skew, "--to", "1.37", "--kubeconfig", "x"}, "--kubeconfig cannot be used with --snapshot"},
		{[]string{"simulate", "upgrade", "--servers", "a=1.36,b=1.36", "--to", "1.37", "--context", "x"}, "--context cannot be used with --servers"},
		{[]string{"preflight", "--servers", "a=1.36,b=1.36", "--to", "1.37", "--timeout", "3s"}, "--timeout cannot be used with --servers"},
		{[]string{"routes", "--snapshot", skew, "-v", "1", "--no-color"}, ""},
	} {
		_, stderr, code := run(t, tc.args...)
		if tc.want == "" {
			if code == ExitError {
				t.Errorf("%v: exit 1: %s", tc.args, stderr)
			}
			continue
		}
		if code != ExitError || !strings.HasPrefix(stderr, "error: "+tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want exit 1 and one line %q", tc.args, code, stderr, tc.want)
		}
	}
	// probe with a snapshot sends requests with the kubeconfig's credentials: --context is
	// taken (here it names no context, and that is the error).
	_, stderr, _ := run(t, "probe", "--snapshot", skew, "--context", "nosuch")
	if strings.Contains(stderr, "cannot be used with --snapshot") {
		t.Errorf("probe --snapshot --context: refused: %s", stderr)
	}
}
