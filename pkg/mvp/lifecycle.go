package mvp

import (
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// EndpointLeaseTTL is the TTL of a server's peer endpoint key in etcd (docs/behaviour.md §4.3).
// Peers resolve the server's address only while the key lives; a live, ready server rewrites
// it every 10 s. After a crash, peers answer 503 transport for up to this long, then 503
// endpoint-resolution.
const EndpointLeaseTTL = 15 * time.Second

// Crash is what a SIGKILL leaves behind: nothing is cleaned up. The identity lease lives on
// (up to 1 h + GC); the endpoint lease expires within EndpointLeaseTTL, after which peers can
// no longer resolve the server (the steady state: 503 endpoint-resolution).
func Crash(srv *snapshot.Server, why string) {
	srv.Reachable, srv.Error = false, why
	srv.PeerProxy.EndpointResolvable = snapshot.Ptr(false)
}

// Stop is a graceful stop (SIGTERM): the endpoint lease is removed at once and, from 1.35, the
// identity lease too, so peers forget the server (docs/behaviour.md §11.5).
func Stop(srv *snapshot.Server, why string) {
	srv.Reachable, srv.Error = false, why
	srv.PeerProxy.EndpointResolvable = snapshot.Ptr(false)
	if StopDeletesIdentityLease(versionOf(srv)) {
		srv.IdentityLease = nil
	}
}

// Start brings a server up: a new process writes a new identity lease and, once ready, its
// endpoint lease (when its gate is on; EndpointResolves checks the gate).
func Start(srv *snapshot.Server, holderSuffix string) {
	srv.Reachable, srv.Error = true, ""
	srv.PeerProxy.EndpointResolvable = nil
	if srv.ID == "" {
		srv.ID = snapshot.ServerID(srv.Hostname)
	}
	srv.IdentityLease = &snapshot.Lease{Name: srv.ID, HolderIdentity: srv.ID + holderSuffix}
}
