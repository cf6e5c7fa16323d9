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
