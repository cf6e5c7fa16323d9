package mvp

import (
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Only a 1.33/1.34 server with the filter built runs the rebuild that exits (§11.2).
func TestExitsOnFailedPeerFetch(t *testing.T) {
	for _, tt := range []struct {
		version string
		filter  *bool
		want    bool
	}{
		{"v1.32.5", snapshot.Ptr(true), false},
		{"v1.33.1", snapshot.Ptr(true), true},
		{"v1.34.4", snapshot.Ptr(true), true},
		{"v1.34.4", snapshot.Ptr(false), false},
		{"v1.34.4", nil, false}, // not observed: assumed absent, as everywhere
		{"v1.35.4", snapshot.Ptr(true), false},
		{"v1.37.1", snapshot.Ptr(true), false},
	} {
		srv := &snapshot.Server{Name: "a", Version: tt.version, PeerProxy: snapshot.PeerProxy{GateEnabled: snapshot.Ptr(true), FilterInstalled: tt.filter}}
		if got := ExitsOnFailedPeerFetch(srv); got != tt.want {
			t.Errorf("%s filter %v: %v, want %v", tt.version, tt.filter, got, tt.want)
		}
	}
}

// A rebuild's fetch reaches the proxy, and fails with a 503, only for a peer that stopped
// answering while its endpoint key resolves or may still resolve.
func TestPeersFailingFetch(t *testing.T) {
	lease := func(id string) *snapshot.Lease { return &snapshot.Lease{Name: id, HolderIdentity: id + "_1"} }
	now := time.Date(2026, 11, 26, 15, 0, 0, 0, time.UTC)
	peer := func(name string, edit func(*snapshot.Server)) snapshot.Server {
		s := snapshot.Server{Name: name, ID: "apiserver-" + name, Version: "v1.36.3", IdentityLease: lease("apiserver-" + name),
			PeerProxy: snapshot.PeerProxy{GateEnabled: snapshot.Ptr(true)}}
		edit(&s)
		return s
	}
	for _, tt := range []struct {
		name string
		peer snapshot.Server
		want bool
	}{
		{"answering", peer("p", func(s *snapshot.Server) { s.Reachable = true }), false},
		{"killed, endpoint key alive", peer("p", func(s *snapshot.Server) { s.PeerProxy.EndpointResolvable = snapshot.Ptr(true) }), true},
		{"killed, inside the window", peer("p", func(s *snapshot.Server) {
			w := EndpointWindowAfter(now)
			s.PeerProxy.EndpointWindow = &w
		}), true},
		{"killed, endpoint key expired", peer("p", func(s *snapshot.Server) { s.PeerProxy.EndpointResolvable = snapshot.Ptr(false) }), false},
		{"stopped, lease deleted", peer("p", func(s *snapshot.Server) { s.IdentityLease = nil; s.PeerProxy.EndpointResolvable = snapshot.Ptr(true) }), false},
		{"gate off: no endpoint key", peer("p", func(s *snapshot.Server) { s.PeerProxy.GateEnabled = snapshot.Ptr(false) }), false},
	} {
		self := snapshot.Server{Name: "a", ID: "apiserver-a", Version: "v1.34.4", Reachable: true, IdentityLease: lease("apiserver-a")}
		snap := &snapshot.Snapshot{Servers: []snapshot.Server{self, tt.peer}}
		got := PeersFailingFetch(snap, &snap.Servers[0])
		if (len(got) == 1) != tt.want || len(got) > 1 {
			t.Errorf("%s: %d failing peers, want %v", tt.name, len(got), tt.want)
		}
	}
}
