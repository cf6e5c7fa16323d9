package simulate

import (
	"strconv"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// What a process event does to a server of a simulated control plane. The rules that decide
// it are pkg/mvp's (StopDeletesIdentityLease, StartDeletesIdentityLease, RebuildsPeerCaches,
// DroppedAtRebuild); here they change a copy of the snapshot.

// Crash is what a SIGKILL leaves of srv: nothing is cleaned up, the identity lease lives on,
// and the endpoint lease lives until it expires (docs/behaviour.md §11.4). endpointAlive says
// which moment: up to mvp.EndpointLeaseTTL after the kill the endpoint lease lives, peers
// resolve the dead server's address and dialling it fails (503 transport); afterwards they
// cannot resolve it (503 endpoint-resolution) for as long as they keep the dead server in
// their peer-discovery caches: until their next rebuild (mvp.RebuildsPeerCaches), at the
// latest when the identity lease is garbage-collected. why is srv's error.
func Crash(srv *snapshot.Server, why string, endpointAlive bool) {
	srv.Reachable, srv.Error = false, why
	srv.PeerProxy.EndpointResolvable = snapshot.Ptr(endpointAlive)
}

// stop is a graceful stop (SIGTERM): the endpoint lease is removed at once and, from 1.35, the
// identity lease too, so peers forget the server (docs/behaviour.md §11.5).
func stop(srv *snapshot.Server, why string) {
	srv.Reachable, srv.Error = false, why
	srv.PeerProxy.EndpointResolvable = snapshot.Ptr(false)
	if v, _ := snapshot.ParseVersion(srv.Version); mvp.StopDeletesIdentityLease(v) {
		srv.IdentityLease = nil
	}
}

// rebuildPeerCaches is every server's rebuild of its peer-discovery cache
// (mvp.DroppedAtRebuild).
func rebuildPeerCaches(snap *snapshot.Snapshot) {
	for i := range snap.Servers {
		s := &snap.Servers[i]
		s.PeerProxy.DroppedByPeers = mvp.DroppedAtRebuild(s)
	}
}

// start brings a server up as a new process: it writes its identity lease and, once ready,
// its endpoint lease (when its gate is on; mvp.EndpointResolves checks the gate). Before 1.35
// a new process renews the identity lease it finds and keeps its holder: no peer rebuilds, and
// peers that dropped the server at an earlier rebuild keep it dropped
// (mvp.StartDeletesIdentityLease).
func start(srv *snapshot.Server) {
	v, _ := snapshot.ParseVersion(srv.Version)
	startAt(srv, v)
}

// startAt is start of srv, whose version is v.
func startAt(srv *snapshot.Server, v snapshot.Version) {
	srv.Reachable, srv.Error = true, ""
	srv.PeerProxy.EndpointResolvable = nil
	if srv.ID == "" {
		srv.ID = mvp.ServerID(srv.Hostname)
	}
	if old := srv.IdentityLease; old != nil && old.HolderIdentity != "" && !mvp.StartDeletesIdentityLease(v) {
		return
	}
	srv.PeerProxy.DroppedByPeers = false
	// The apiserver's holder identity carries a new random suffix for every process, which is
	// what makes its peers rebuild (mvp.RebuildsPeerCaches).
	holder := srv.ID + "_simulated"
	if old := srv.IdentityLease; old != nil && strings.HasPrefix(old.HolderIdentity, holder) {
		n, _ := strconv.Atoi(strings.TrimPrefix(strings.TrimPrefix(old.HolderIdentity, holder), "-"))
		holder += "-" + strconv.Itoa(n+1)
	}
	srv.IdentityLease = &snapshot.Lease{Name: srv.ID, HolderIdentity: holder}
}
