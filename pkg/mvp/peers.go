package mvp

import "github.com/mvpctl/mvpctl/pkg/snapshot"

// PeerExclusion says why a server is not in another server's peer-discovery cache, from the
// apiserver's own rules (docs/behaviour.md §4.2). The empty value means "it is a peer".
type PeerExclusion string

const (
	PeerIsSelf           PeerExclusion = "same identity as this server: never its peer"
	PeerHasNoID          PeerExclusion = "no identity lease matched: not a peer"
	PeerHasNoLease       PeerExclusion = "no identity lease (stopped gracefully on 1.35+, or expired): not a peer"
	PeerLeaseHasNoOwner  PeerExclusion = "identity lease without holderIdentity: ignored as a peer"
	PeerGateOff          PeerExclusion = "feature gate off: it writes no peer endpoint lease, so its discovery is never fetched"
	PeerDroppedAtRebuild PeerExclusion = "stopped answering, and the peer-discovery cache was rebuilt since: its entry was dropped"
)

// PeerOf returns "" when server s holds peer p in its peer-discovery cache — p has an identity
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
	if !p.Reachable && p.PeerProxy.DroppedByPeers && EraOf(versionOf(s)).RoutesOnDiscovery() {
		return PeerDroppedAtRebuild
	}
	return ""
}
