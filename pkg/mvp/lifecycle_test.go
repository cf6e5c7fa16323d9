package mvp

import (
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func TestRebuildsPeerCaches(t *testing.T) {
	lease := func(holder string) *snapshot.Lease {
		return &snapshot.Lease{Name: "apiserver-a", HolderIdentity: holder}
	}
	for _, tt := range []struct {
		name          string
		before, after *snapshot.Lease
		want          bool
	}{
		{"no lease before or after (a crash of a server without one)", nil, nil, false},
		{"created: a server joins", nil, lease("a_1"), true},
		{"deleted: a graceful stop on 1.35+", lease("a_1"), nil, true},
		{"renewed: same holder", lease("a_1"), lease("a_1"), false},
		{"new holder: the server restarted", lease("a_1"), lease("a_2"), true},
	} {
		if got := RebuildsPeerCaches(tt.before, tt.after); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// Every start is a new process with a new holder identity, so that peers rebuild.
func TestStartWritesNewHolder(t *testing.T) {
	srv := &snapshot.Server{Name: "a", ID: "apiserver-a", Version: "v1.36.3"}
	seen := map[string]bool{}
	for i := 0; i < 3; i++ {
		before := srv.IdentityLease
		Start(srv, "_simulated")
		if seen[srv.IdentityLease.HolderIdentity] || !RebuildsPeerCaches(before, srv.IdentityLease) {
			t.Fatalf("start %d: holder %q again", i+1, srv.IdentityLease.HolderIdentity)
		}
		seen[srv.IdentityLease.HolderIdentity] = true
	}
}

// A rebuild drops the dead (not the stopped-and-forgotten, not the running) servers, for
// servers that route on a peer-discovery cache (1.33+) only.
func TestRebuildPeerCachesDropsDead(t *testing.T) {
	running := snapshot.Server{Name: "r", ID: "apiserver-r", Version: "v1.36.3", Reachable: true, IdentityLease: &snapshot.Lease{Name: "apiserver-r", HolderIdentity: "r_1"}}
	dead := snapshot.Server{Name: "d", ID: "apiserver-d", Version: "v1.36.3", IdentityLease: &snapshot.Lease{Name: "apiserver-d", HolderIdentity: "d_1"}}
	gone := snapshot.Server{Name: "g", ID: "apiserver-g", Version: "v1.36.3"}
	snap := &snapshot.Snapshot{Servers: []snapshot.Server{running, dead, gone}}
	if PeerOf(&snap.Servers[0], &snap.Servers[1]).Excluded() {
		t.Fatal("before the rebuild the dead server is still a peer")
	}
	RebuildPeerCaches(snap)
	if !snap.Servers[1].PeerProxy.DroppedByPeers || snap.Servers[0].PeerProxy.DroppedByPeers || snap.Servers[2].PeerProxy.DroppedByPeers {
		t.Fatalf("dropped: %v %v %v", snap.Servers[0].PeerProxy.DroppedByPeers, snap.Servers[1].PeerProxy.DroppedByPeers, snap.Servers[2].PeerProxy.DroppedByPeers)
	}
	if got := PeerOf(&snap.Servers[0], &snap.Servers[1]); got != PeerDroppedAtRebuild {
		t.Errorf("after the rebuild: %q", got)
	}
	sv := snapshot.Server{Name: "old", ID: "apiserver-old", Version: "v1.31.0", Reachable: true}
	if got := PeerOf(&sv, &snap.Servers[1]); got.Excluded() {
		t.Errorf("a 1.31 server routes on StorageVersions, no discovery cache: %q", got)
	}
	Start(&snap.Servers[1], "_simulated")
	if snap.Servers[1].PeerProxy.DroppedByPeers {
		t.Error("a restarted server is fetched again")
	}
}
