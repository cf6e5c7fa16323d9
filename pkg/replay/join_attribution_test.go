package replay

import (
	"strings"
	"testing"
)

// TestProxiedAttribution: a join whose events come from a log given without SERVER= says
// which requests it could not attribute to servers, and why; a join of named logs says
// nothing.
func TestProxiedAttribution(t *testing.T) {
	pair := func(from, to string, n int64) ProxiedPair {
		return ProxiedPair{From: from, To: to, Code: 200, ToCode: 200, Requests: n}
	}
	for _, tc := range []struct {
		name       string
		pairs      []ProxiedPair
		attributed bool
		want       string // in Unattributed; "" for none
	}{
		{"merged log", []ProxiedPair{pair(UnknownServer, UnknownServer, 7), pair(UnknownServer, UnknownServer, 1)}, false, "not attributed to servers: an audit event does not name the server that wrote it, and the log was given without SERVER="},
		{"named logs", []ProxiedPair{pair("kas-a", "kas-b", 8)}, true, ""},
		{"one log named", []ProxiedPair{pair("kas-a", UnknownServer, 3), pair("kas-a", "kas-b", 5)}, true, "3 of them not attributed to servers (unknown (merged log)): "},
	} {
		p := &ProxiedReport{Pairs: tc.pairs}
		for _, pr := range tc.pairs {
			p.Total += pr.Requests
		}
		got := p.Unattributed()
		if p.Attributed() != tc.attributed || (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: Attributed %v, Unattributed %q; want %v, %q", tc.name, p.Attributed(), got, tc.attributed, tc.want)
		}
		if got != "" && !strings.Contains(got, "--audit-log SERVER=FILE") {
			t.Errorf("%s: %q does not say what to do", tc.name, got)
		}
	}
}
