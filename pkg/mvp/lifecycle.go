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

// RenewInterval is how often a live server renews its identity lease and rewrites its peer
// endpoint key (docs/behaviour.md §4.2, §4.3). The key is rewritten on a fixed 10 s clock
// (NonSlidingUntil); the lease on a sliding one with a jitter of 0.04 (JitterUntil), so up to
// RenewJitter later.
const RenewInterval = 10 * time.Second

// RenewJitter is how much later than RenewInterval an identity lease renewal may come
// (component-helpers apimachinery/lease/controller.go: jitter factor 0.04).
const RenewJitter = RenewInterval * 4 / 100

// EtcdExpiryLag is how long after its TTL etcd may take to revoke an expired lease, and so
// delete the endpoint key attached to it: its lessor looks for expired leases every 500 ms.
const EtcdExpiryLag = 500 * time.Millisecond

// EndpointWindowAfter bounds when the endpoint key of a server that stopped answering expires,
// from its identity lease's last renewal: the server died at most RenewInterval + RenewJitter
// after it, and its last endpoint write was at most RenewInterval before its death, so the key
// lives at least until lastRenew + EndpointLeaseTTL - RenewInterval and is gone by lastRenew +
// RenewInterval + RenewJitter + EndpointLeaseTTL + EtcdExpiryLag.
func EndpointWindowAfter(lastRenew time.Time) snapshot.EndpointWindow {
	return snapshot.EndpointWindow{AliveUntil: lastRenew.Add(EndpointLeaseTTL - RenewInterval),
		GoneBy: lastRenew.Add(RenewInterval + RenewJitter + EndpointLeaseTTL + EtcdExpiryLag)}
}

// EndpointAt says, for a server that stopped answering, whether its endpoint key resolves at
// time at: resolves, or not, or unknown (inside the window).
func EndpointAt(w snapshot.EndpointWindow, at time.Time) (resolves, known bool) {
	switch {
	case at.Before(w.AliveUntil):
		return true, true
	case !at.Before(w.GoneBy):
		return false, true
	}
	return false, false
}

// EndpointLikelyAlive says, for a moment inside the window (EndpointAt unknown), which answer
// is the likelier one: the dead server's last endpoint write fell anywhere in the RenewInterval
// before its death, so the key's expiry is spread evenly over the window, and before its middle
// the key more likely still lives (peers answer 503 transport) than not.
func EndpointLikelyAlive(w snapshot.EndpointWindow, at time.Time) bool {
	return at.Before(w.AliveUntil.Add(w.GoneBy.Sub(w.AliveUntil) / 2))
}

// DeadBy reports whether a server whose identity lease was last renewed at lastRenew had
// certainly stopped by t: a live server renews every RenewInterval plus at most RenewJitter
// (and the time the renewal itself takes, which the last 100 ms allow for).
func DeadBy(lastRenew, t time.Time) bool {
	return t.After(lastRenew.Add(RenewInterval + RenewJitter + 100*time.Millisecond))
}

// RebuildsPeerCaches reports whether a change of one identity lease (nil: none) makes every
// server rebuild its peer-discovery cache: the apiserver's lease informer queues a rebuild when
// a lease is added or deleted, or changes holder (a new process); a renewal does not
// (k8s.io/apiserver pkg/util/peerproxy, peerproxy.go: the informer's event handlers).
func RebuildsPeerCaches(before, after *snapshot.Lease) bool {
	switch {
	case before == nil || after == nil:
		return before != after
	}
	return before.Name != after.Name || before.HolderIdentity != after.HolderIdentity
}

// DroppedAtRebuild reports whether srv is dropped from its peers' peer-discovery caches when
// they rebuild them (RebuildsPeerCaches): the discovery of a server that stopped answering
// cannot be fetched, so its entry is dropped and its peers stop routing to it — a 404, no
// longer a 503 (docs/behaviour.md §11.4); a server that answers is in the caches again. A
// server without an identity lease is no peer at all.
func DroppedAtRebuild(srv *snapshot.Server) bool {
	return !srv.Reachable && srv.IdentityLease != nil
}

// NarrowEndpointWindow narrows w, the window in which the endpoint key of a server that stopped
// answering expires, with what a watcher saw: the server answered at lastAnswered and not at
// firstRefused, so it died in between. Its last key write was at most RenewInterval before its
// death, so the key lives past lastAnswered + EndpointLeaseTTL - RenewInterval; and it is gone by
// firstRefused + EndpointLeaseTTL + EtcdExpiryLag. The later bound holds only if the server
// really died then, not if mvpctl merely lost its way to it: callers pass firstRefused only when
// the identity lease was not renewed after it.
func NarrowEndpointWindow(w snapshot.EndpointWindow, lastAnswered, firstRefused time.Time) snapshot.EndpointWindow {
	if a := lastAnswered.Add(EndpointLeaseTTL - RenewInterval); !lastAnswered.IsZero() && a.After(w.AliveUntil) {
		w.AliveUntil = a
	}
	if g := firstRefused.Add(EndpointLeaseTTL + EtcdExpiryLag); !firstRefused.IsZero() && g.Before(w.GoneBy) {
		w.GoneBy = g
	}
	if w.GoneBy.Before(w.AliveUntil) { // the two clocks disagree by more than the bounds allow
		w.GoneBy = w.AliveUntil
	}
	return w
}
