package probe

import (
	"testing"

	"github.com/mvpctl/mvpctl/pkg/report"
)

func TestReportResult(t *testing.T) {
	tests := []struct {
		name  string
		rep   Report
		class report.Class
		why   string
	}{
		{"all match", Report{Summary: Summary{Results: 3, Match: 3}}, report.OK, ""},
		{"a mismatch wins over partial", Report{Partial: true, Summary: Summary{Results: 3, Mismatch: 1, LoopViolations: 2}}, report.Blocking,
			"1 mismatch(es), 2 loop-header violation(s) in 3 result(s)"},
		{"a server not probed and inconclusive results", Report{Partial: true, Servers: []ServerReport{{Name: "a", Probed: true}, {Name: "b"}},
			Summary: Summary{Results: 4, Inconclusive: 1, Errors: 1, ServersNotProbed: 1}}, report.Partial,
			"b could not be probed; 2 of 4 measurement(s) gave no routing evidence (1 inconclusive, 1 error, 0 not measured)"},
		{"interrupted", Report{Partial: true, Interrupted: "interrupted by SIGINT"}, report.Partial, "interrupted by SIGINT"},
	}
	for _, tt := range tests {
		r := tt.rep.Result()
		if r.Class != tt.class || (r.Reason != nil && r.Reason.String() != tt.why) {
			t.Errorf("%s: %v %v, want %v %q", tt.name, r.Class, r.Reason, tt.class, tt.why)
		}
	}
}
