package route

import (
	"math"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func TestLBShare(t *testing.T) {
	member := func(name, class string, share float64, est int) snapshot.Server {
		return snapshot.Server{Name: name, LB: &snapshot.ServerLB{Class: class, Share: share, EstimatedServers: est}}
	}
	snap := &snapshot.Snapshot{Cluster: snapshot.Cluster{LB: &snapshot.LBSampling{}}, Servers: []snapshot.Server{
		member("class-1-1", "class-1", 20.0/30, 2), member("class-1-2", "class-1", 20.0/30, 2), member("class-2", "class-2", 10.0/30, 1)}}
	cells := func(a, b, c mvp.Outcome) []Cell {
		return []Cell{{Server: "class-1-1", Outcome: a}, {Server: "class-1-2", Outcome: b}, {Server: "class-2", Outcome: c}}
	}
	for _, tc := range []struct {
		name              string
		cells             []Cell
		local, prox, fail float64
		text              string
	}{
		{"one class proxies", cells(mvp.Local, mvp.Local, mvp.Proxied), 2.0 / 3, 1.0 / 3, 0, "67% local, 33% proxied (1 in 3), 0% fail"},
		{"the larger class proxies", cells(mvp.Proxied, mvp.Proxied, mvp.Local), 1.0 / 3, 2.0 / 3, 0, "33% local, 67% proxied, 0% fail"},
		{"one class 404s", cells(mvp.Local, mvp.Local, mvp.NotFound), 2.0 / 3, 0, 1.0 / 3, "67% local, 33% fail"},
		{"members differ", cells(mvp.Proxied, mvp.Unavailable, mvp.Local), 1.0 / 3, 1.0 / 3, 1.0 / 3, "33% local, 33% proxied (1 in 3), 33% fail"},
		{"unknown outcome", cells(mvp.Local, mvp.Local, mvp.Unknown), 2.0 / 3, 0, 0, "67% local, 0% fail, 33% unknown"},
	} {
		s := lbShare(snap, tc.cells)
		if math.Abs(s.Local-tc.local) > 1e-12 || math.Abs(s.Proxied-tc.prox) > 1e-12 || math.Abs(s.NotFound+s.Unavailable-tc.fail) > 1e-12 || s.Text != tc.text {
			t.Errorf("%s: %+v, want local %.3f proxied %.3f fail %.3f %q", tc.name, *s, tc.local, tc.prox, tc.fail, tc.text)
		}
	}
	if lbShare(&snapshot.Snapshot{}, nil) != nil {
		t.Error("a share for a snapshot not sampled through a balancer")
	}
}

func TestPercentAndOneIn(t *testing.T) {
	for _, tc := range []struct {
		f     float64
		pct   string
		oneIn int
	}{
		{0, "0%", 0}, {1, "100%", 0}, {0.004, "<1%", 250}, {0.9999, ">99%", 0}, {0.5, "50%", 2},
		{1.0 / 3, "33%", 3}, {0.25, "25%", 4}, {0.3, "30%", 0}, {0.1, "10%", 10}, {2.0 / 3, "67%", 0},
	} {
		if got := percent(tc.f); got != tc.pct {
			t.Errorf("percent(%v) = %q, want %q", tc.f, got, tc.pct)
		}
		if got := oneIn(tc.f); got != tc.oneIn {
			t.Errorf("oneIn(%v) = %d, want %d", tc.f, got, tc.oneIn)
		}
	}
}
