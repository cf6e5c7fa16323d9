package discover

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// noter adds an observation about the topics named to the evidence.
type noter func(about snapshot.EvidenceTopics, format string, args ...any)

// peerProxyEvidence fills PeerProxy from what was observed. Every field it sets comes with an
// Evidence line; a field it cannot establish stays nil ("unknown").
func peerProxyEvidence(r *result, lease *identityLease, takenAt time.Time) snapshot.PeerProxy {
	var pp snapshot.PeerProxy
	note := func(about snapshot.EvidenceTopics, format string, args ...any) {
		pp.AddEvidence(snapshot.Observed(about), fmt.Sprintf(format, args...))
	}
	const gate, filter = snapshot.TopicGate, snapshot.TopicFilter
	rz := r.readyz
	reachable := r.client != nil && r.err == nil

	// Filter installed: only its readiness hook proves it (docs/behaviour.md §2 step 0).
	if rz.read {
		switch {
		case rz.has(hookProxyHandler):
			pp.FilterInstalled = snapshot.Ptr(true)
			note(filter, "readyz lists poststarthook/%s: the proxy filter is installed", hookProxyHandler)
		case rz.has(hookProxyFilterSV):
			pp.FilterInstalled = snapshot.Ptr(true)
			note(filter, "readyz lists poststarthook/%s: the proxy filter is installed", hookProxyFilterSV)
		default:
			pp.FilterInstalled = snapshot.Ptr(false)
			note(filter, "readyz lists neither poststarthook/%s nor poststarthook/%s: no proxy filter", hookProxyHandler, hookProxyFilterSV)
		}
	} else if rz.err != "" {
		note(filter, "readyz not read (%s): proxy filter unknown", rz.err)
	}

	// Gate: the endpoint reconciler's hook, the filter, or the lease annotation each prove it
	// on; their joint absence proves it off.
	switch {
	case rz.read && rz.has(hookPeerEndpointRec):
		pp.GateEnabled = snapshot.Ptr(true)
		note(gate, "readyz lists poststarthook/%s: gate UnknownVersionInteroperabilityProxy on", hookPeerEndpointRec)
	case pp.FilterInstalled != nil && *pp.FilterInstalled:
		pp.GateEnabled = snapshot.Ptr(true)
	case lease != nil && lease.address != "":
		pp.GateEnabled = snapshot.Ptr(true)
		note(gate, "identity lease has annotation %s=%s: gate on", peerAddressAnnotation, lease.address)
	case rz.read:
		pp.GateEnabled = snapshot.Ptr(false)
		note(gate, "readyz lists no poststarthook/%s: gate UnknownVersionInteroperabilityProxy off", hookPeerEndpointRec)
	case lease != nil:
		pp.GateEnabled = snapshot.Ptr(false)
		note(gate, "identity lease has no %s annotation: gate off", peerAddressAnnotation)
	}

	peerAggregatedEvidence(&pp, r, note)
	endpointEvidence(&pp, r, lease, reachable, takenAt, note)
	peerLearningEvidence(&pp, r, func(format string, args ...any) { note(0, format, args...) })
	if r.t != nil && r.t.matchedBy != "" {
		note(0, "identity lease %s matched: %s", lease.name, r.t.matchedBy)
	}
	for _, n := range r.notes {
		pp.AddEvidence(snapshot.Observed(0), n)
	}
	return pp
}

// peerAggregatedEvidence decides PeerAggregatedDiscovery. Peer aggregation needs a 1.35+
// binary with the proxy built (docs/behaviour.md §7), so the readyz hook and the version decide; the
// documents decide when readyz could not be read. Equal documents prove nothing: with no
// peers the peer-aggregated /apis is the local one, byte for byte.
func peerAggregatedEvidence(pp *snapshot.PeerProxy, r *result, note noter) {
	differs := r.peerAggFetched && r.doc != nil && (!sameResources(r.peerAgg, apisOnly(r.doc.resources)) || etagsDiffer(r.doc.apis, r.peerAggDoc))
	switch {
	case r.minor < 0:
		if differs {
			pp.PeerAggregatedDiscovery = snapshot.Ptr(true)
			note(0, "default /apis differs from profile=nopeer /apis: peer-aggregated discovery on")
		}
	case !mvp.CanAggregateDiscovery(r.binaryVersion()):
		pp.PeerAggregatedDiscovery = snapshot.Ptr(false)
		note(0, "version 1.%d: no peer-aggregated discovery before %s", r.minor, mvp.AggregationSince())
	case differs:
		pp.PeerAggregatedDiscovery = snapshot.Ptr(true)
		note(0, "default /apis differs from profile=nopeer /apis: peer-aggregated discovery on")
	case pp.FilterInstalled != nil:
		pp.PeerAggregatedDiscovery = snapshot.Ptr(*pp.FilterInstalled)
		if *pp.FilterInstalled {
			note(snapshot.TopicFilter, "1.%d with the proxy filter: default /apis is peer-aggregated (equal to nopeer now)", r.minor)
		} else {
			note(snapshot.TopicFilter, "1.%d without the proxy filter: default /apis is not peer-aggregated", r.minor)
		}
	}
	if r.peerAggErr != "" {
		note(0, "default /apis not read (%s)", r.peerAggErr)
	}
}

// etagsDiffer reports whether two recorded documents have different ETags: their content
// differs, even when the resource sets are equal (order, verbs).
func etagsDiffer(a, b *snapshot.DiscoveryDocument) bool {
	return a != nil && b != nil && a.ETag != "" && b.ETag != "" && a.ETag != b.ETag
}

// droppedByPeersEvidence marks each server that stopped answering as dropped by its peers when
// another identity lease was created after it died (mvp.DeadBy): that event made every peer
// rebuild its peer-discovery cache, which cannot fetch a dead server, so they route to it no
// more (docs/behaviour.md §11.4). A 1.35+ peer's peer-aggregated /apis may still list what it
// served: that document is not always rebuilt with the cache (§7, "Invalidation").
func droppedByPeersEvidence(servers []snapshot.Server) {
	for i := range servers {
		dead := &servers[i]
		if dead.Reachable || dead.IdentityLease == nil || dead.IdentityLease.RenewTime == nil {
			continue
		}
		for j := range servers {
			other := &servers[j]
			if j == i || other.IdentityLease == nil || other.IdentityLease.Created == nil || !mvp.DeadBy(*dead.IdentityLease.RenewTime, *other.IdentityLease.Created) {
				continue
			}
			dead.PeerProxy.DroppedByPeers = true
			dead.PeerProxy.AddEvidence(snapshot.Observed(0), fmt.Sprintf("%s's identity lease was created at %s, after this server stopped renewing its own (last %s): every peer rebuilt its peer-discovery cache then and dropped this server",
				other.Name, other.IdentityLease.Created.UTC().Format(time.RFC3339), dead.IdentityLease.RenewTime.UTC().Format(time.RFC3339)))
			break
		}
	}
}

// endpointEvidence decides EndpointResolvable: whether the server's 15 s peer endpoint key is
// in etcd, so peers can resolve its address. It is not observable from outside (docs/behaviour.md §4.3).
func endpointEvidence(pp *snapshot.PeerProxy, r *result, lease *identityLease, reachable bool, takenAt time.Time, note noter) {
	switch {
	case pp.GateEnabled != nil && !*pp.GateEnabled:
		pp.EndpointResolvable = snapshot.Ptr(false)
		note(snapshot.TopicGate, "gate off: no peer endpoint key is written, peers cannot resolve this server")
	case reachable && r.readyz.read && !r.readyz.ready:
		note(0, "readyz fails: the peer endpoint key is written only once the server is ready; resolvable unknown")
	case reachable:
		pp.EndpointResolvable = snapshot.Ptr(true)
		note(0, "server answered: its peer endpoint key is being renewed")
	case lease != nil && lease.renew != nil:
		age := takenAt.Sub(*lease.renew).Round(time.Second)
		w := mvp.EndpointWindowAfter(*lease.renew)
		switch resolves, known := mvp.EndpointAt(w, takenAt); {
		case known:
			pp.EndpointResolvable = snapshot.Ptr(resolves)
			note(0, "identity lease renewed %s before the snapshot: the endpoint key %s (it lives until at least %s and is gone by %s)", age,
				map[bool]string{true: "still lives", false: "has expired"}[resolves], w.AliveUntil.UTC().Format(time.RFC3339), w.GoneBy.UTC().Format(time.RFC3339))
		default:
			pp.EndpointWindow = &w
			note(0, "identity lease renewed %s before the snapshot: the endpoint key may still live (it lives until at least %s and is gone by %s)", age,
				w.AliveUntil.UTC().Format(time.RFC3339), w.GoneBy.UTC().Format(time.RFC3339))
		}
	case lease != nil:
		pp.EndpointResolvable = snapshot.Ptr(false)
		note(0, "identity lease has no renewTime: endpoint assumed gone")
	}
}

// apisOnly drops the core group: /api is never peer-aggregated, so the comparison with the
// default /apis is over /apis groups only.
func apisOnly(rs []snapshot.Resource) []snapshot.Resource {
	var out []snapshot.Resource
	for _, r := range rs {
		if r.Group != "" {
			out = append(out, r)
		}
	}
	return out
}

// sameResources compares two resource lists as sets, ignoring order (peer aggregation may
// reorder) and Source (assigned later).
func sameResources(a, b []snapshot.Resource) bool {
	if len(a) != len(b) {
		return false
	}
	key := func(r snapshot.Resource) string {
		verbs := append([]string(nil), r.Verbs...)
		subs := append([]string(nil), r.Subresources...)
		sort.Strings(verbs)
		sort.Strings(subs)
		return fmt.Sprintf("%s|%s|%t|%s|%s", r.GVR(), r.Kind, r.Namespaced, strings.Join(verbs, ","), strings.Join(subs, ","))
	}
	count := map[string]int{}
	for _, r := range a {
		count[key(r)]++
	}
	for _, r := range b {
		count[key(r)]--
		if count[key(r)] < 0 {
			return false
		}
	}
	return true
}
