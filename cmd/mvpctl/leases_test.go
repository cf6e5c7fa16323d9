package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

const leasesUnlisted = "testdata/snapshots/leases-unlisted.yaml"

// TestLeasesUnlistedSnapshot: a snapshot whose identity leases could not be listed holds the
// servers found otherwise only; every command made from it says so first and exits 2, the
// preflight gate too at --fail-on blocking (a partial read fails closed); explain of one
// server it holds is whole (exit 0). The same file with the leases listed exits 0.
func TestLeasesUnlistedSnapshot(t *testing.T) {
	const why = `the identity leases in kube-system could not be listed (GET /apis/coordination.k8s.io/v1/namespaces/kube-system/leases: 403 Forbidden: leases.coordination.k8s.io is forbidden: User "no-leases" cannot list resource "leases" in API group "coordination.k8s.io" in the namespace "kube-system"): other apiservers, and any that are down, are not known`
	snap, err := snapshot.LoadFile(leasesUnlisted)
	if err != nil {
		t.Fatal(err)
	}
	snap.Cluster.IdentityLeases = &snapshot.IdentityLeases{Listed: true}
	listed := filepath.Join(t.TempDir(), "listed.yaml")
	if err := snap.WriteFile(listed, false); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		golden string
		args   []string
		code   int
		stderr []string // lines stderr must start with, in order
	}{
		{"routes", "routes-leases-unlisted.txt", []string{"routes", "--snapshot", leasesUnlisted}, ExitIncomplete, []string{
			"warning: " + why, "warning: partial result: " + why}},
		{"explain", "", []string{"explain", "--snapshot", leasesUnlisted, "jobs.batch"}, ExitIncomplete, []string{
			"warning: " + why, "warning: partial result: " + why}},
		{"preflight", "preflight-leases-unlisted.txt", []string{"preflight", "--snapshot", leasesUnlisted, "--to", "1.37"}, ExitIncomplete, []string{
			"warning: " + why, "warning: preflight: partial, exit 2 at --fail-on warning: 0 blocking, 3 warning finding(s); not read: " + why}},
		{"preflight fail-on blocking: a partial read fails closed", "", []string{"preflight", "--snapshot", leasesUnlisted, "--to", "1.37", "--fail-on", "blocking"}, ExitIncomplete, []string{
			"warning: " + why, "warning: preflight: partial, exit 2 at --fail-on blocking"}},
		{"preflight fail-on never", "", []string{"preflight", "--snapshot", leasesUnlisted, "--to", "1.37", "--fail-on", "never"}, ExitOK, []string{
			"warning: " + why}},
		{"simulate", "", []string{"simulate", "upgrade", "--snapshot", leasesUnlisted, "--to", "1.37"}, ExitIncomplete, []string{
			"warning: " + why}},
		{"explain one server", "", []string{"explain", "--snapshot", leasesUnlisted, "--apiserver", "kas-a", "jobs.batch"}, ExitOK, []string{
			"warning: " + why}},
		{"leases listed", "", []string{"routes", "--snapshot", listed}, ExitOK, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := run(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, errOut)
			}
			stderrStartsWith(t, errOut, tc.stderr)
			if tc.stderr == nil && errOut != "" {
				t.Errorf("stderr %q, want none", errOut)
			}
			if strings.HasPrefix(tc.name, "preflight") && tc.golden != "" && !strings.HasPrefix(out, "Result: partial (") {
				t.Errorf("stdout does not say the partial read first:\n%s", out)
			}
			if tc.golden != "" {
				golden(t, tc.golden, out)
			}
		})
	}
}
