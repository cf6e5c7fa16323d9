package e2e

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// checkTableForms: kubectl's table forms on live commands of a real control plane (kc):
// preflight's -o name prints one ID:SUBJECT per finding of -o csv, and -o wide its extra
// columns; traffic's -o wide is its table (it has no more columns: the -o help says so), and
// -o name its servers.
func checkTableForms(t *testing.T, kc string) {
	t.Helper()
	csv := runMvpctl(t, "preflight", "--kubeconfig", kc, "--to", "1.37", "-o", "csv", "--no-headers")
	names := runMvpctl(t, "preflight", "--kubeconfig", kc, "--to", "1.37", "-o", "name")
	wide := runMvpctl(t, "preflight", "--kubeconfig", kc, "--to", "1.37", "-o", "wide")
	for _, r := range []mvpctlResult{csv, names, wide} {
		if r.Exit == 1 {
			t.Errorf("%s\nwant the findings (exit 0, 2 or 3)", r)
		}
	}
	key := regexp.MustCompile(`^MVP\d{3}:\S+$`)
	lines := strings.Split(strings.TrimSuffix(string(names.Stdout), "\n"), "\n")
	for _, l := range lines {
		if !key.MatchString(l) {
			t.Errorf("preflight -o name: %q is not ID:SUBJECT", l)
		}
	}
	if rows := strings.Count(string(csv.Stdout), "\n"); rows != len(lines) { // one line a finding: no message has a newline
		t.Errorf("preflight: %d -o name lines, %d -o csv rows", len(lines), rows)
	}
	if !regexp.MustCompile(`(?m)^ID +SEVERITY +SUBJECT +MESSAGE +STEP +CHECK +FIX$`).Match(wide.Stdout) {
		t.Errorf("%s\nwant the wide findings table", wide)
	}
	t.Logf("preflight -o name (%d findings):\n%s", len(lines), names.Stdout)

	table := runMvpctl(t, "traffic", "--kubeconfig", kc, "--interval", "1s")
	wideT := runMvpctl(t, "traffic", "--kubeconfig", kc, "--interval", "1s", "-o", "wide")
	nameT := runMvpctl(t, "traffic", "--kubeconfig", kc, "--interval", "1s", "-o", "name")
	// servers are the first column of the table's rows (the notes after it, "kas-a: ...",
	// depend on what the interval saw).
	servers := func(r mvpctlResult) []string {
		var s []string
		for _, l := range strings.Split(string(r.Stdout), "\n")[1:] {
			if f := strings.Fields(l); len(f) == 6 && strings.HasPrefix(f[0], "kas-") {
				s = append(s, f[0])
			}
		}
		return slices.Compact(s)
	}
	head := func(r mvpctlResult) string { return strings.SplitN(string(r.Stdout), "\n", 2)[0] }
	if table.Exit != 0 || wideT.Exit != 0 || head(wideT) != head(table) || !slices.Equal(servers(wideT), servers(table)) {
		t.Errorf("traffic -o wide:\n%s\nwant the table's columns and servers:\n%s", wideT, table)
	}
	if nameT.Exit != 0 || string(nameT.Stdout) != strings.Join(servers(table), "\n")+"\n" {
		t.Errorf("%s\nwant the servers of the table %v", nameT, servers(table))
	}
	t.Logf("traffic -o wide:\n%s", wideT.Stdout)
}
