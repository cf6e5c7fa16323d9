package mvp

import (
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// What follows a crash (docs/behaviour.md §11.4): peers answer 503 transport while the dead
// server's endpoint key lives, 503 endpoint-resolution once it has expired, and 404 for what
// only the dead server served once they rebuild their peer-discovery caches. The first switch
// has time bounds (EndpointWindowOf); the second comes with an event (RebuildTrigger), and at
// the latest when the dead server's identity lease is garbage-collected (IdentityLeaseGCWindow).

// IdentityLeaseDuration is an identity lease's leaseDurationSeconds: the lease GC deletes a
// lease not renewed for this long (k/k pkg/controlplane/apiserver: IdentityLeaseDurationSeconds).
const IdentityLeaseDuration = 3600 * time.Second

// IdentityLeaseGCPeriod is how often every apiserver's identity lease GC looks for expired
// leases (k/k pkg/controlplane/apiserver: IdentityLeaseGCPeriod; apiserverleasegc runs it with
// wait.Until).
const IdentityLeaseGCPeriod = 3600 * time.Second

// IdentityLeaseGCWindow bounds when the identity lease of a server that stopped renewing it at
// lastRenew is deleted: it expires at lastRenew + IdentityLeaseDuration, and the first GC pass
// of some live apiserver after that deletes it, at most IdentityLeaseGCPeriod later.
func IdentityLeaseGCWindow(lastRenew time.Time) (from, by time.Time) {
	expires := lastRenew.Add(IdentityLeaseDuration)
	return expires, expires.Add(IdentityLeaseGCPeriod)
}

// CrashEvent is what changes the answer peers give for a server that stopped answering.
type CrashEvent string

const (
	// EndpointKeyExpiry: the dead server's peer endpoint key expires, so its address no longer
	// resolves: 503 transport becomes 503 endpoint-resolution.
	EndpointKeyExpiry CrashEvent = "endpoint-key-expiry"
	// PeerDiscoveryRebuild: a peer rebuilds its peer-discovery cache, cannot fetch the dead
	// server's discovery and drops it (DroppedAtRebuild): what only it served is a 404.
	PeerDiscoveryRebuild CrashEvent = "peer-discovery-rebuild"
)

// RebuildTrigger is an event that makes a server rebuild its peer-discovery cache
// (k8s.io/apiserver pkg/util/peerproxy: peerproxy.go's lease informer handlers enqueue a
// sync; peer_discovery.go's syncPeerDiscoveryCache rebuilds from every identity lease, and
// handleSyncPeerDiscoveryCacheErr re-queues a failed one, rate-limited, up to maxRetries).
// Nothing rebuilds it periodically: the informer's resync is an update without a holder change.
type RebuildTrigger string

const (
	// TriggerLeaseEvent: an identity lease is created, deleted or changes holder
	// (RebuildsPeerCaches): an apiserver joins, or a 1.35+ one restarts or stops gracefully
	// (StartDeletesIdentityLease, StopDeletesIdentityLease). Every server rebuilds at once.
	TriggerLeaseEvent RebuildTrigger = "identity-lease-event"
	// TriggerSyncRetry: a retry of an earlier peer-discovery sync that failed, still pending
	// (its backoff adds up to about 55 min on 1.35+, ≈155 ms on 1.33/1.34).
	TriggerSyncRetry RebuildTrigger = "sync-retry"
	// TriggerLeaseGC: the dead server's identity lease is garbage-collected (a lease deletion,
	// so a lease event too): the bound of IdentityLeaseGCWindow.
	TriggerLeaseGC RebuildTrigger = "identity-lease-gc"
)

// RebuildTriggers are the events that rebuild a peer-discovery cache, in the order an
// explanation names them.
var RebuildTriggers = []RebuildTrigger{TriggerLeaseEvent, TriggerSyncRetry, TriggerLeaseGC}

// CrashedPeer is a server whose crash is still unfolding at the snapshot's moment: it did not
// answer, it still holds an identity lease with a holder, its gate is on (so peers route to
// it) and its peers have not dropped it yet.
type CrashedPeer struct {
	Server *snapshot.Server
	// Window bounds its endpoint key's expiry (EndpointWindowOf); nil when nothing bounds it.
	Window *snapshot.EndpointWindow
	// KeyExpired: the key is known gone at the snapshot; only the rebuild is to come.
	KeyExpired bool
	// Stopped: its identity lease's last renewal is too old for a live server (DeadBy). False:
	// it did not answer, but it may still run, and what follows holds only if it stopped.
	Stopped bool
	// GCFrom and GCBy bound when its identity lease is garbage-collected (IdentityLeaseGCWindow);
	// zero when its last renewal is not known.
	GCFrom, GCBy time.Time
}

// CrashedPeers are the servers of snap whose crash is still unfolding (CrashedPeer), in
// snapshot order.
func CrashedPeers(snap *snapshot.Snapshot) []CrashedPeer {
	var out []CrashedPeer
	for i := range snap.Servers {
		p := &snap.Servers[i]
		if p.Reachable || p.ID == "" || p.IdentityLease == nil || p.IdentityLease.HolderIdentity == "" || p.PeerProxy.DroppedByPeers {
			continue
		}
		if gate, _ := GateOn(p); !gate {
			continue
		}
		c := CrashedPeer{Server: p}
		if w, ok := EndpointWindowOf(p); ok {
			c.Window = &w
		}
		resolves, known := EndpointResolvesKnown(p)
		c.KeyExpired = known && !resolves
		if r := p.IdentityLease.RenewTime; r != nil {
			c.Stopped = !snap.TakenAt.IsZero() && DeadBy(*r, snap.TakenAt)
			c.GCFrom, c.GCBy = IdentityLeaseGCWindow(*r)
		}
		out = append(out, c)
	}
	return out
}

// EndpointWindowOf bounds when the endpoint key of srv, which stopped answering, expires: the
// window the snapshot recorded (narrowed by a watcher), else the one its identity lease's last
// renewal gives (EndpointWindowAfter) — recorded or not, since a snapshot taken before the
// window opens records only that the key still lives.
func EndpointWindowOf(srv *snapshot.Server) (snapshot.EndpointWindow, bool) {
	if w := srv.PeerProxy.EndpointWindow; w != nil {
		return *w, true
	}
	if l := srv.IdentityLease; l != nil && l.RenewTime != nil {
		return EndpointWindowAfter(*l.RenewTime), true
	}
	return snapshot.EndpointWindow{}, false
}

// StopDeletesIdentityLeaseVersions is the Kubernetes versions whose graceful stop deletes the
// identity lease (StopDeletesIdentityLease), and so rebuilds every peer's cache: "1.35+".
func StopDeletesIdentityLeaseVersions() string { return minorRange(firstAggregationMinor, 0) }

// StartDeletesIdentityLeaseVersions is the Kubernetes versions whose new process deletes and
// creates again the identity lease it finds (StartDeletesIdentityLease): the same lease
// controller change as StopDeletesIdentityLeaseVersions.
func StartDeletesIdentityLeaseVersions() string { return StopDeletesIdentityLeaseVersions() }
