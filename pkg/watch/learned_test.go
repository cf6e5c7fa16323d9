package watch

import (
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/proxytraffic"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestProvenLearned: a 1.36 server whose peer-aggregated /apis does not list a 1.37-only GVR
// yet is routed 404 for it; once its counters show it proxied that GVR with a 200, it is
// routed to the peer; the proof dies with the process (down, or another lease holder).
func TestProvenLearned(t *testing.T) {
	const gvr = "storagemigration.k8s.io/v1/storageversionmigrations"
	g, err := snapshot.ParseGVR(gvr)
	if err != nil {
		t.Fatal(err)
	}
	plane, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: "1.37", Proxy: "configured"}, {Name: "b", Version: "1.36", Proxy: "configured"}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	// b has not learned g yet: its /apis lacks it.
	lagging := *plane
	lagging.Servers = append([]snapshot.Server(nil), plane.Servers...)
	for i := range lagging.Servers {
		s := &lagging.Servers[i]
		if s.Name != "b" {
			continue
		}
		if len(s.PeerAggregated) == 0 {
			t.Fatal("the simulated 1.36 server has no peer-aggregated /apis")
		}
		var kept []snapshot.Resource
		for _, r := range s.PeerAggregated {
			if r.GVR() != g {
				kept = append(kept, r)
			}
		}
		s.PeerAggregated = kept
		s.IdentityLease = &snapshot.Lease{Name: "apiserver-b", HolderIdentity: "b_1"}
	}
	cell := func(snap *snapshot.Snapshot) string {
		for _, row := range route.NewRouter(snap).Table(true).Rows {
			if row.Name == gvr {
				for _, c := range row.Cells {
					if c.Server == "b" {
						return c.Text
					}
				}
			}
		}
		return "?"
	}
	p := newProvenLearned()
	if got := cell(p.apply(&lagging)); got != "404" {
		t.Fatalf("b without the proof: %q, want 404", got)
	}
	proxied := []proxytraffic.Server{{Name: "b", Read: true, ByGVR: true, Proxied: []proxytraffic.Count{{GVR: gvr, Code: "200", Count: 3}}}}
	p.add(proxied, &lagging)
	if got := cell(p.apply(&lagging)); got != "proxy→a" {
		t.Errorf("b with its counters' proof: %q, want proxy→a", got)
	}
	if got := cell(&lagging); got != "404" {
		t.Errorf("apply changed its argument: %q", got)
	}
	// A new holder of b's lease: another process, which proved nothing yet.
	restarted := lagging
	restarted.Servers = append([]snapshot.Server(nil), lagging.Servers...)
	for i := range restarted.Servers {
		if restarted.Servers[i].Name == "b" {
			restarted.Servers[i].IdentityLease = &snapshot.Lease{Name: "apiserver-b", HolderIdentity: "b_2"}
		}
	}
	p.forget(&restarted)
	if got := cell(p.apply(&restarted)); got != "404" {
		t.Errorf("b restarted: %q, want 404 (the proof died with the process)", got)
	}
	// A 503 proves nothing learned.
	p.add([]proxytraffic.Server{{Name: "b", Read: true, ByGVR: true, Proxied: []proxytraffic.Count{{GVR: gvr, Code: "503", Count: 1}}}}, &restarted)
	if got := cell(p.apply(&restarted)); got != "404" {
		t.Errorf("b after a proxied 503: %q, want 404", got)
	}
}
