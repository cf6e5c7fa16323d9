package route

import (
	"slices"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestVerdict: the decision alone — where the filter stopped, the rule that fired, the peers
// tried (resolved or not) and the outcome — with no words made.
func TestVerdict(t *testing.T) {
	jobs := "/apis/batch/v1/namespaces/default/jobs"
	gateOff := func(s *snapshot.Server) { s.PeerProxy.GateEnabled = snapshot.Ptr(false) }
	for _, tc := range []struct {
		name             string
		snap             *snapshot.Snapshot
		server, path     string
		header           bool
		stop             filterStop
		rule             mvp.Rule
		outcome          mvp.Outcome
		resolved, failed []string
	}{
		{"serves it itself", snap(server("a", "v1.36.3", all...), server("b", "v1.36.3", noBatch...)), "a", jobs, false,
			stopServesItself, mvp.RuleDiscoveryRouting, mvp.Local, nil, nil},
		{"one peer serves it", snap(server("a", "v1.36.3", all...), server("b", "v1.36.3", noBatch...)), "b", jobs, false,
			stopResolve, mvp.RuleLoopHeader, mvp.Proxied, []string{"a"}, nil},
		{"two peers serve it", snap(server("a", "v1.36.3", all...), server("b", "v1.36.3", noBatch...), server("c", "v1.36.3", all...)), "b", jobs, false,
			stopResolve, mvp.RuleRandomPeer, mvp.Proxied, []string{"a", "c"}, nil},
		{"the only peer is down, its endpoint key gone", snap(down(server("a", "v1.36.3", all...), false), withAggregated(server("b", "v1.36.3", noBatch...), "batch/v1/jobs")), "b", jobs, false,
			stopResolve, mvp.RuleNoneResolves503, mvp.Unavailable, nil, []string{"a"}},
		{"the only peer is down, its endpoint key alive", snap(down(server("a", "v1.36.3", all...), true), withAggregated(server("b", "v1.36.3", noBatch...), "batch/v1/jobs")), "b", jobs, false,
			stopResolve, mvp.RuleTransport503, mvp.Unavailable, []string{"a"}, nil},
		{"no peer serves it", snap(server("a", "v1.36.3", all...), server("b", "v1.36.3", noBatch...)), "b", "/apis/example.com/v1/widgets", false,
			stopNoPeer, mvp.RuleDiscoveryRouting, mvp.NotFound, nil, nil},
		{"gate off", snap(server("a", "v1.36.3", all...), with(server("b", "v1.36.3", noBatch...), gateOff)), "b", jobs, false,
			stopGateOff, mvp.RuleFilter, mvp.NotFound, nil, nil},
		{"loop-prevention header", snap(server("a", "v1.36.3", all...), server("b", "v1.36.3", noBatch...)), "b", jobs, true,
			stopLoopHeader, mvp.RuleLoopHeader, mvp.NotFound, nil, nil},
		{"not a resource request", snap(server("a", "v1.36.3", all...)), "a", "/readyz", false,
			stopNonResource, mvp.RuleNonResource, mvp.Local, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRouter(tc.snap)
			req, err := ParseRequest("GET", tc.path)
			if err != nil {
				t.Fatal(err)
			}
			req.HeaderProxied = tc.header
			v := r.byName[tc.server]
			var vd verdict
			r.verdictOf(v, req, r.keyOf(req), &vd)
			names := func(cs []Candidate) []string {
				var out []string
				for _, c := range cs {
					out = append(out, c.Server)
				}
				return out
			}
			if vd.stop != tc.stop || vd.rule != tc.rule || vd.outcome != tc.outcome ||
				!slices.Equal(names(vd.proxy.resolved), tc.resolved) || !slices.Equal(names(vd.proxy.failed), tc.failed) {
				t.Errorf("verdict: stop %d, rule %s, %s, resolved %v, failed %v; want stop %d, rule %s, %s, resolved %v, failed %v",
					vd.stop, vd.rule, vd.outcome, names(vd.proxy.resolved), names(vd.proxy.failed), tc.stop, tc.rule, tc.outcome, tc.resolved, tc.failed)
			}
			if d := vd.decision(); len(d.Steps) != 0 || d.Reason != "" || d.Plain.Answer != "" {
				t.Errorf("a verdict has words: %+v", d)
			}
		})
	}
}
