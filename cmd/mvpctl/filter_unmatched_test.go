package main

import (
	"strings"
	"testing"
)

// TestFilterMatchingNothing: a --resource or --group that matches nothing is a usage error in
// every command that has them, naming the closest match; never a pass on a typo.
func TestFilterMatchingNothing(t *testing.T) {
	skew := "../../examples/skew.yaml"
	for _, tt := range []struct {
		name string
		args []string
		says string
	}{
		{"preflight --resource", []string{"preflight", "--snapshot", skew, "--to", "1.37", "--resource", "jbos"}, "matches resource jbos in the plane and the profiles of the upgrade; the closest is jobs"},
		{"preflight --group -o markdown", []string{"preflight", "--snapshot", skew, "--to", "1.37", "--group", "bacth", "-o", "markdown"}, "matches group bacth in the plane and the profiles of the upgrade; the closest is batch"},
		{"preflight with traffic", []string{"preflight", "--snapshot", skew, "--to", "1.37", "--audit-log", "../../examples/audit.log.gz", "--group", "bacth"}, "in the plane, the profiles of the upgrade and the replayed traffic; the closest is batch"},
		{"preflight, entries that match apart", []string{"preflight", "--snapshot", skew, "--to", "1.37", "--resource", "jobs", "--group", "apps"}, "each matches something, but not together"},
		{"simulate --group", []string{"simulate", "upgrade", "--snapshot", skew, "--to", "1.37", "--group", "bacth"}, "the closest is batch"},
		{"routes --resource", []string{"routes", "--snapshot", skew, "--resource", "jbos"}, "matches resource jbos in the plane; the closest is jobs"},
		{"explain --group", []string{"explain", "--snapshot", skew, "--group", "bacth", "jobs"}, "matches group bacth in the plane; the closest is batch"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, tt.args...)
			if code != ExitError || !strings.Contains(errOut, tt.says) || out != "" {
				t.Errorf("exit %d, want %d; stdout %q; stderr %q, want %q", code, ExitError, out, errOut, tt.says)
			}
		})
	}
	// A filter that matches passes as before: findings of other GVRs are left out and said so.
	if _, errOut, code := run(t, "preflight", "--snapshot", skew, "--to", "1.37", "--resource", "cj"); code == ExitError || !strings.Contains(errOut, "only findings for resource cj") {
		t.Errorf("--resource cj: exit %d, stderr %q", code, errOut)
	}
}
