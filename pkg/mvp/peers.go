package mvp

import (
	"fmt"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// PeerExclusion says why a server is not in another server's peer-discovery cache, from the
// apiserver's own rules (docs/behaviour.md §4.2, §11.3). The zero value, PeerIncluded, means
// "it is a peer" (for Learns: "and its discovery was fetched"); String words each reason.
type PeerExclusion uint8

const (
	PeerIncluded PeerExclusion = iota
	PeerIsSelf
	PeerHasNoID
	PeerHasNoLease
	PeerLeaseHasNoOwner
	PeerGateOff
	PeerDroppedAtRebuild
	// PeerNotTrusted and PeerAdvertiseUnreachable are Learns': a peer by PeerOf whose
	// discovery fetch fails.
	PeerNotTrusted
	PeerAdvertiseUnreachable
	// PeerDroppedNotRelearned: dropped at a rebuild while down, and restarted since on a
	// version that keeps its identity lease's holder (before 1.35), by a server whose retries
	// of the failed sync are over (before 1.35): it has not rebuilt since.
	PeerDroppedNotRelearned
)

// Excluded reports whether e is a reason, not PeerIncluded.
func (e PeerExclusion) Excluded() bool { return e != PeerIncluded }

// String is the reason in words, for a person to read.
func (e PeerExclusion) String() string {
	switch e {
	case PeerIncluded:
		return ""
	case PeerIsSelf:
		return "same identity as this server: never its peer"
	case PeerHasNoID:
		return "no identity lease matched: not a peer"
	case PeerHasNoLease:
		return "no identity lease (stopped gracefully on 1.35+, or expired): not a peer"
	case PeerLeaseHasNoOwner:
		return "identity lease without holderIdentity: ignored as a peer"
	case PeerGateOff:
		return "feature gate off: it writes no peer endpoint lease, so its discovery is never fetched"
	case PeerDroppedAtRebuild:
		return "stopped answering, and the peer-discovery cache was rebuilt since: its entry was dropped"
	case PeerDroppedNotRelearned:
		return "dropped at a rebuild while it was down; its restart kept its identity lease's holder, and no rebuild has happened since"
	case PeerNotTrusted:
		return "this server's --peer-ca-file does not trust the peer's serving certificate: its discovery fetch fails TLS verification"
	case PeerAdvertiseUnreachable:
		return "the peer's peer-advertise address does not accept connections: its discovery cannot be fetched"
	}
	return fmt.Sprintf("PeerExclusion(%d)", uint8(e))
}

// PeerOf returns PeerIncluded when server s holds peer p in its peer-discovery cache — p has an identity
// lease with a holder, and its gate is on, so it writes the endpoint lease s resolves before
// fetching — or the reason it does not. Whether s actually fetched p's discovery successfully is
// evidence, not a rule: see the learned view in pkg/route and pkg/peerdiscovery.
func PeerOf(s, p *snapshot.Server) PeerExclusion {
	switch {
	case p.ID == "":
		return PeerHasNoID
	case p.ID == s.ID:
		return PeerIsSelf
	case p.IdentityLease == nil && !p.Reachable:
		return PeerHasNoLease
	case p.IdentityLease != nil && p.IdentityLease.HolderIdentity == "":
		return PeerLeaseHasNoOwner
	}
	if gate, _ := GateOn(p); !gate {
		return PeerGateOff
	}
	if p.PeerProxy.DroppedByPeers && EraOf(versionOf(s)).RoutesOnDiscovery() {
		switch {
		case !p.Reachable:
			return PeerDroppedAtRebuild
		case !RelearnsRestartedPeer(versionOf(s)):
			return PeerDroppedNotRelearned
		}
	}
	return PeerIncluded
}
