package main

import (
	"strings"
	"testing"
)

// TestPreflightBlockingFirst: text and markdown list the blocking findings first, then the
// warnings, then info, whatever the order of the checks that found them.
func TestPreflightBlockingFirst(t *testing.T) {
	args := []string{"preflight", "--snapshot", "../../examples/skew.yaml", "--to", "1.37", "--audit-log", "../../examples/audit.log.gz", "--evidence-window", "4s"}
	rank := map[string]int{"blocking": 0, "warning": 1, "info": 2}
	for _, format := range []string{"table", "wide", "markdown"} {
		t.Run(format, func(t *testing.T) {
			out, _, code := run(t, append(args, "-o", format)...)
			if code != ExitFindings {
				t.Fatalf("exit %d, want %d", code, ExitFindings)
			}
			var severities []string
			for _, l := range strings.Split(out, "\n") {
				f := strings.Fields(strings.ReplaceAll(l, "|", " "))
				if len(f) < 2 || !strings.HasPrefix(f[0], "MVP") {
					continue
				}
				if _, ok := rank[f[1]]; ok {
					severities = append(severities, f[1])
				}
			}
			blocking := 0
			for i, s := range severities {
				if s == "blocking" {
					blocking++
				}
				if i > 0 && rank[s] < rank[severities[i-1]] {
					t.Fatalf("row %d is %s after %s: %v", i+1, s, severities[i-1], severities)
				}
			}
			if blocking == 0 || blocking == len(severities) {
				t.Fatalf("want blocking and warning rows, got %v", severities)
			}
		})
	}
}
