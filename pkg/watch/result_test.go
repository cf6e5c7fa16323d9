package watch

import (
	"testing"

	"github.com/mvpctl/mvpctl/pkg/report"
)

func TestResultVerdict(t *testing.T) {
	tests := []struct {
		name  string
		res   Result
		class report.Class
		why   string
	}{
		{"quiet", Result{Summary: SummaryDoc{Snapshots: 3}}, report.OK, ""},
		{"windows win", Result{Summary: SummaryDoc{ReadsFailed: 1, Windows: []WindowDoc{{Server: "a"}, {Server: "b"}, {Server: "a"}}}, Down: []string{"c"}},
			report.Blocking, "3 windows with 404/503 on a, b"},
		{"one window", Result{Summary: SummaryDoc{Windows: []WindowDoc{{Server: "a"}}}}, report.Blocking, "1 window with 404/503 on a"},
		{"reads failed, a server down", Result{Summary: SummaryDoc{Snapshots: 5, ReadsFailed: 2}, Down: []string{"c", "d"}},
			report.Partial, "no 404/503 window seen, but 2 of 5 reads got nothing; c, d still down at the end"},
	}
	for _, tt := range tests {
		r := tt.res.Verdict()
		if r.Class != tt.class || (r.Reason != nil && r.Reason.String() != tt.why) {
			t.Errorf("%s: %v %v, want %v %q", tt.name, r.Class, r.Reason, tt.class, tt.why)
		}
	}
}
