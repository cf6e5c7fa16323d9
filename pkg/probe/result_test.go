package probe

import "testing"

func TestReportResult(t *testing.T) {
	for want, rep := range map[string]Report{
		"ok": {Summary: Summary{Results: 3, Match: 3}},
		// a mismatch wins over a partial probe
		"blocking: 1 mismatch(es), 2 loop-header violation(s) in 3 result(s)": {Partial: true, Summary: Summary{Results: 3, Mismatch: 1, LoopViolations: 2}},
		"partial: b could not be probed; 2 of 4 measurement(s) gave no routing evidence (1 inconclusive, 1 error, 0 not measured)": {Partial: true,
			Servers: []ServerReport{{Name: "a", Probed: true}, {Name: "b"}}, Summary: Summary{Results: 4, Inconclusive: 1, Errors: 1, ServersNotProbed: 1}},
		"partial: interrupted by SIGINT": {Partial: true, Interrupted: "interrupted by SIGINT"},
	} {
		if got := rep.Result().String(); got != want {
			t.Errorf("Result() = %q, want %q", got, want)
		}
	}
}
