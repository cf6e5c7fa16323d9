package mvp

import (
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Which servers' crash is still unfolding, and what bounds it: the endpoint key's window from
// the recorded one or from the identity lease's last renewal, whether the stop is certain, and
// when the identity lease is garbage-collected.
func TestCrashedPeers(t *testing.T) {
	now := time.Date(2026, 11, 26, 15, 0, 0, 0, time.UTC)
	renew := now.Add(-2500 * time.Millisecond)
	narrowed := snapshot.EndpointWindow{AliveUntil: now.Add(time.Second), GoneBy: now.Add(8 * time.Second)}
	peer := func(edit func(*snapshot.Server)) snapshot.Server {
		r := renew
		s := snapshot.Server{Name: "p", ID: "apiserver-p", Version: "v1.36.3",
			IdentityLease: &snapshot.Lease{Name: "apiserver-p", HolderIdentity: "apiserver-p_1", RenewTime: &r},
			PeerProxy:     snapshot.PeerProxy{GateEnabled: snapshot.Ptr(true), EndpointResolvable: snapshot.Ptr(true)}}
		edit(&s)
		return s
	}
	for _, tt := range []struct {
		name    string
		peer    snapshot.Server
		crashed bool
		window  snapshot.EndpointWindow
		expired bool
		stopped bool
	}{
		{"answering", peer(func(s *snapshot.Server) { s.Reachable = true }), false, snapshot.EndpointWindow{}, false, false},
		{"just killed: key lives, stop not certain", peer(func(*snapshot.Server) {}), true, EndpointWindowAfter(renew), false, false},
		{"window recorded (narrowed by a watcher)", peer(func(s *snapshot.Server) {
			s.PeerProxy.EndpointResolvable, s.PeerProxy.EndpointWindow = nil, &narrowed
		}), true, narrowed, false, false},
		{"key expired, long stopped", peer(func(s *snapshot.Server) {
			old := now.Add(-time.Minute)
			s.IdentityLease.RenewTime, s.PeerProxy.EndpointResolvable = &old, snapshot.Ptr(false)
		}), true, EndpointWindowAfter(now.Add(-time.Minute)), true, true},
		{"dropped by a rebuild", peer(func(s *snapshot.Server) { s.PeerProxy.DroppedByPeers = true }), false, snapshot.EndpointWindow{}, false, false},
		{"lease deleted (graceful stop)", peer(func(s *snapshot.Server) { s.IdentityLease = nil }), false, snapshot.EndpointWindow{}, false, false},
		{"gate off: never routed to", peer(func(s *snapshot.Server) { s.PeerProxy.GateEnabled = snapshot.Ptr(false) }), false, snapshot.EndpointWindow{}, false, false},
	} {
		snap := &snapshot.Snapshot{TakenAt: now, Servers: []snapshot.Server{tt.peer}}
		got := CrashedPeers(snap)
		if len(got) != map[bool]int{true: 1}[tt.crashed] {
			t.Errorf("%s: %d crashed peers, want crashed=%v", tt.name, len(got), tt.crashed)
			continue
		}
		if !tt.crashed {
			continue
		}
		c := got[0]
		if c.Window == nil || *c.Window != tt.window || c.KeyExpired != tt.expired || c.Stopped != tt.stopped {
			t.Errorf("%s: window %v expired %v stopped %v; want %v %v %v", tt.name, c.Window, c.KeyExpired, c.Stopped, tt.window, tt.expired, tt.stopped)
		}
		lastRenew := *tt.peer.IdentityLease.RenewTime
		if !c.GCFrom.Equal(lastRenew.Add(time.Hour)) || !c.GCBy.Equal(lastRenew.Add(2*time.Hour)) {
			t.Errorf("%s: lease GC between %s and %s, want 1 h and 2 h after %s", tt.name, c.GCFrom, c.GCBy, lastRenew)
		}
	}
}
