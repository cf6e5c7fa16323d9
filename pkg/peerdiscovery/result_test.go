package peerdiscovery

import (
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"

	"github.com/mvpctl/mvpctl/pkg/report"
)

func TestResults(t *testing.T) {
	tests := []struct {
		name  string
		r     report.Result
		class report.Class
		why   string
	}{
		{"every expectation exact", ExpectationsResult([]Expectation{{Server: "a", Status: StatusAggregated, Document: &apidiscoveryv2.APIGroupDiscoveryList{}}}), report.OK, ""},
		{"unread and uncertain", ExpectationsResult([]Expectation{{Server: "a", Status: StatusUnreachable}, {Server: "b", Status: StatusAggregated, Document: &apidiscoveryv2.APIGroupDiscoveryList{}, Uncertain: []string{"x", "y"}}}),
			report.Partial, "no exact prediction for a (unreachable), b (uncertain: x; y)"},
		{"one stale entry", (&Report{Summary: Summary{Stale: 1}, Partial: true}).Result(), report.Blocking, "1 stale, 0 missing entry"},
		{"two entries", (&Report{Summary: Summary{Stale: 1, Missing: 1}}).Result(), report.Blocking, "1 stale, 1 missing entries"},
		{"not checked", (&Report{Partial: true, Servers: []ServerDiff{{Name: "a", Status: StatusNotRecorded}, {Name: "b", Uncertain: []string{"x"}}, {Name: "c"}}}).Result(),
			report.Partial, "not checked: a (not-recorded), b (uncertain)"},
		{"all checked", (&Report{}).Result(), report.OK, ""},
	}
	for _, tt := range tests {
		if tt.r.Class != tt.class || (tt.r.Reason != nil && tt.r.Reason.String() != tt.why) {
			t.Errorf("%s: %v %v, want %v %q", tt.name, tt.r.Class, tt.r.Reason, tt.class, tt.why)
		}
	}
}
