package simulate

import (
	"testing"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestProcessEvents: what a graceful stop, a start and a crash leave of a server, by the
// rules of pkg/mvp.
func TestProcessEvents(t *testing.T) {
	for _, tc := range []struct {
		version   string
		stopKeeps bool // the identity lease survives a graceful stop
	}{{"v1.34.4", true}, {"v1.35.4", false}, {"v1.37.1", false}} {
		srv := &snapshot.Server{ID: "apiserver-a", Hostname: "a", Version: tc.version, Reachable: true,
			IdentityLease: &snapshot.Lease{Name: "apiserver-a", HolderIdentity: "apiserver-a_1"},
			PeerProxy:     snapshot.PeerProxy{GateEnabled: snapshot.Ptr(true)}}
		stop(srv, "stopped")
		if (srv.IdentityLease != nil) != tc.stopKeeps || srv.Reachable || mvp.EndpointResolves(srv) {
			t.Errorf("%s after Stop: lease %v reachable %v resolves %v", tc.version, srv.IdentityLease, srv.Reachable, mvp.EndpointResolves(srv))
		}
		start(srv)
		if srv.IdentityLease == nil || !srv.Reachable || !mvp.EndpointResolves(srv) {
			t.Errorf("%s after Start: %+v", tc.version, srv)
		}
		Crash(srv, "killed", true)
		if srv.IdentityLease == nil || srv.Reachable || !mvp.EndpointResolves(srv) {
			t.Errorf("%s right after Crash: lease must survive, endpoint still resolves: %+v", tc.version, srv)
		}
		Crash(srv, "killed", false)
		if srv.IdentityLease == nil || srv.Reachable || mvp.EndpointResolves(srv) {
			t.Errorf("%s after Crash and %s: lease must survive, endpoint must not resolve: %+v", tc.version, mvp.EndpointLeaseTTL, srv)
		}
	}
}

// A 1.35+ start deletes and recreates the lease with a new holder, so peers rebuild; a 1.34 one
// renews the lease it finds and keeps its holder (TestRestartRecreatesIdentityLease, e2e), so
// they do not, and a server they dropped stays dropped; a first start creates the lease.
func TestStartHolder(t *testing.T) {
	for _, tt := range []struct {
		version       string
		restarted     bool // a lease was there to find
		wantRebuild   bool
		wantStillDrop bool
	}{
		{"v1.36.3", true, true, false},
		{"v1.35.4", true, true, false},
		{"v1.34.4", true, false, true},
		{"v1.33.2", true, false, true},
		{"v1.34.4", false, true, false},
	} {
		srv := &snapshot.Server{Name: "a", ID: "apiserver-a", Version: tt.version}
		if tt.restarted {
			srv.IdentityLease = &snapshot.Lease{Name: "apiserver-a", HolderIdentity: "apiserver-a_1"}
			srv.PeerProxy.DroppedByPeers = true
		}
		before := srv.IdentityLease
		start(srv)
		if got := mvp.RebuildsPeerCaches(before, srv.IdentityLease); got != tt.wantRebuild {
			t.Errorf("%s, restarted %v: peers rebuild %v, want %v (holder %q)", tt.version, tt.restarted, got, tt.wantRebuild, srv.IdentityLease.HolderIdentity)
		}
		if srv.PeerProxy.DroppedByPeers != tt.wantStillDrop || !srv.Reachable {
			t.Errorf("%s, restarted %v: reachable %v, dropped by peers %v, want %v", tt.version, tt.restarted, srv.Reachable, srv.PeerProxy.DroppedByPeers, tt.wantStillDrop)
		}
	}
	srv := &snapshot.Server{Name: "a", ID: "apiserver-a", Version: "v1.36.3"}
	seen := map[string]bool{}
	for i := 0; i < 3; i++ {
		start(srv)
		if seen[srv.IdentityLease.HolderIdentity] {
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
	if mvp.PeerOf(&snap.Servers[0], &snap.Servers[1]).Excluded() {
		t.Fatal("before the rebuild the dead server is still a peer")
	}
	rebuildPeerCaches(snap)
	if !snap.Servers[1].PeerProxy.DroppedByPeers || snap.Servers[0].PeerProxy.DroppedByPeers || snap.Servers[2].PeerProxy.DroppedByPeers {
		t.Fatalf("dropped: %v %v %v", snap.Servers[0].PeerProxy.DroppedByPeers, snap.Servers[1].PeerProxy.DroppedByPeers, snap.Servers[2].PeerProxy.DroppedByPeers)
	}
	if got := mvp.PeerOf(&snap.Servers[0], &snap.Servers[1]); got != mvp.PeerDroppedAtRebuild {
		t.Errorf("after the rebuild: %q", got)
	}
	sv := snapshot.Server{Name: "old", ID: "apiserver-old", Version: "v1.31.0", Reachable: true}
	if got := mvp.PeerOf(&sv, &snap.Servers[1]); got.Excluded() {
		t.Errorf("a 1.31 server routes on StorageVersions, no discovery cache: %q", got)
	}
	start(&snap.Servers[1])
	if snap.Servers[1].PeerProxy.DroppedByPeers {
		t.Error("a restarted server is fetched again")
	}

	// A 1.34 server restarted after the rebuild dropped it (no lease event): a 1.34 peer, its
	// retries over, keeps it dropped until the next rebuild; a 1.35+ peer, still retrying the
	// failed sync, learns it again.
	old := snapshot.Server{Name: "o", ID: "apiserver-o", Version: "v1.34.4", IdentityLease: &snapshot.Lease{Name: "apiserver-o", HolderIdentity: "o_1"},
		PeerProxy: snapshot.PeerProxy{GateEnabled: snapshot.Ptr(true)}}
	running34 := snapshot.Server{Name: "r34", ID: "apiserver-r34", Version: "v1.34.4", Reachable: true, IdentityLease: &snapshot.Lease{Name: "apiserver-r34", HolderIdentity: "r34_1"}}
	snap = &snapshot.Snapshot{Servers: []snapshot.Server{running, old, running34}}
	rebuildPeerCaches(snap)
	start(&snap.Servers[1])
	if got := mvp.PeerOf(&snap.Servers[2], &snap.Servers[1]); got != mvp.PeerDroppedNotRelearned {
		t.Errorf("seen by a 1.34 server: %q, want mvp.PeerDroppedNotRelearned", got)
	}
	if got := mvp.PeerOf(&snap.Servers[0], &snap.Servers[1]); got.Excluded() {
		t.Errorf("seen by a 1.36 server: %q, want a peer (learned again at the next retry)", got)
	}
	rebuildPeerCaches(snap)
	if got := mvp.PeerOf(&snap.Servers[2], &snap.Servers[1]); got.Excluded() {
		t.Errorf("after the next rebuild: %q, want a peer", got)
	}
}
