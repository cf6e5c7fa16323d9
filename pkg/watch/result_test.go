package watch

import "testing"

func TestResultVerdict(t *testing.T) {
	for want, res := range map[string]Result{
		"ok": {Summary: SummaryDoc{Snapshots: 3}},
		// windows win over a partial watch
		"blocking: 3 windows with 404/503 on a, b":                                                  {Summary: SummaryDoc{ReadsFailed: 1, Windows: []WindowDoc{{Server: "a"}, {Server: "b"}, {Server: "a"}}}, Down: []string{"c"}},
		"blocking: 1 window with 404/503 on a":                                                      {Summary: SummaryDoc{Windows: []WindowDoc{{Server: "a"}}}},
		"partial: no 404/503 window seen, but 2 of 5 reads got nothing; c, d still down at the end": {Summary: SummaryDoc{Snapshots: 5, ReadsFailed: 2}, Down: []string{"c", "d"}},
	} {
		if got := res.Verdict().String(); got != want {
			t.Errorf("Verdict() = %q, want %q", got, want)
		}
	}
}
