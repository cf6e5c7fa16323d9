package mvp

import (
	"fmt"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// How a server's peer-proxy configuration is decided. A field the snapshot records (observed)
// wins; then the flags the installer's configuration states (Server.Stated, StatedProxyOf);
// a field neither gives is the kube-apiserver default for the binary's version, and the
// answer says it was assumed. The defaults are those of a plain kube-apiserver (and of the
// common installers, kubeadm among them): the gate per version, and no --peer-ca-file, so no
// proxy filter. Never the optimistic "configured" — that is a choice the user states
// (docs/behaviour.md §8).

// GateOn returns whether UnknownVersionInteroperabilityProxy is on, and whether that was
// assumed from the version's default because the snapshot does not say.
func GateOn(srv *snapshot.Server) (on, assumed bool) {
	if g := srv.PeerProxy.GateEnabled; g != nil {
		return *g, false
	}
	if sp, ok := statedProxy(srv); ok {
		return sp.Gate, false
	}
	return GateDefault(versionOf(srv)), true
}

// FilterInstalled returns whether the proxy filter exists, and whether that was assumed. The
// filter needs the gate and --peer-ca-file (docs/behaviour.md §2 step 0); --peer-ca-file has no
// default, so a server whose filter was not observed is assumed to have none.
func FilterInstalled(srv *snapshot.Server) (on, assumed bool) {
	if f := srv.PeerProxy.FilterInstalled; f != nil {
		return *f, false
	}
	if !EraOf(versionOf(srv)).HasProxy() {
		return false, false
	}
	if sp, ok := statedProxy(srv); ok {
		return sp.Filter(), false
	}
	if gate, gateAssumed := GateOn(srv); !gate && !gateAssumed {
		return false, false // the gate is known off: nothing to assume
	}
	return false, true
}

// AggregatesDiscovery returns whether the server's default /apis merges its peers' documents:
// a 1.35+ binary with the peer proxy built (docs/behaviour.md §7). A recorded observation wins;
// otherwise the filter decides (FilterInstalled's assumption included).
func AggregatesDiscovery(srv *snapshot.Server) (on, assumed bool) {
	if !CanAggregateDiscovery(versionOf(srv)) {
		return false, false
	}
	if pa := srv.PeerProxy.PeerAggregatedDiscovery; pa != nil {
		return *pa, false
	}
	return FilterInstalled(srv)
}

// EndpointResolves reports whether peers can resolve the server's address: its peer endpoint
// lease (an etcd key with a 15 s TTL) exists. Only a server with the gate on writes one, and
// only while it runs (plus up to EndpointLeaseTTL after a crash) (docs/behaviour.md §4.3).
func EndpointResolves(srv *snapshot.Server) bool {
	resolves, _ := EndpointResolvesKnown(srv)
	return resolves
}

// EndpointResolvesKnown is EndpointResolves, and whether it is known: not when the snapshot
// was taken inside the window in which the dead server's endpoint key may or may not have
// expired (PeerProxy.EndpointWindow). Unknown counts as not resolving, the steady state.
func EndpointResolvesKnown(srv *snapshot.Server) (resolves, known bool) {
	if gate, _ := GateOn(srv); !gate {
		return false, true
	}
	if e := srv.PeerProxy.EndpointResolvable; e != nil {
		return *e, true
	}
	if srv.PeerProxy.EndpointWindow != nil && !srv.Reachable {
		return false, false
	}
	return srv.Reachable, true
}

// versionOf is the server's binary version; zero (era none) when it does not parse, which
// snapshot validation prevents for loaded snapshots.
func versionOf(srv *snapshot.Server) snapshot.Version {
	v, _ := snapshot.ParseVersion(srv.Version)
	return v
}

// ProxySetup is how a server simulated from a version profile has its Mixed Version Proxy set
// up: the binary's defaults (what a plain installer such as kubeadm starts), fully configured
// (gate on, --peer-ca-file set), or off.
type ProxySetup string

const (
	ProxyDefault    ProxySetup = "default"
	ProxyConfigured ProxySetup = "configured"
	ProxyOff        ProxySetup = "off"
)

// ParseProxySetup reads "default", "configured" or "off" ("" is the default).
func ParseProxySetup(s string) (ProxySetup, error) {
	switch p := ProxySetup(s); p {
	case "":
		return ProxyDefault, nil
	case ProxyDefault, ProxyConfigured, ProxyOff:
		return p, nil
	}
	return "", fmt.Errorf("proxy setup %q: want default, configured or off", s)
}

// The words that start a line of evidence that is not an observation, for people; the line's
// kind (snapshot.EvidenceKind) is what decisions read.
const (
	// StatedEvidence: the user said so (a flag, a scenario file).
	StatedEvidence = string(snapshot.EvidenceStated)
	// AssumedEvidence: mvpctl took a default; no one said or saw it.
	AssumedEvidence = string(snapshot.EvidenceAssumed)
)

// PeerProxy is the peer-proxy state of a server of version v set up as p, with evidence that
// says it was not observed: "stated" when the user said how the server is set up
// (--proxy=configured|off), "assumed" when mvpctl took the version's defaults.
func (p ProxySetup) PeerProxy(v snapshot.Version) snapshot.PeerProxy {
	var pp snapshot.PeerProxy
	stated := snapshot.EvidenceKind{Basis: snapshot.EvidenceStated, Topics: snapshot.TopicGate}
	switch p {
	case ProxyConfigured:
		pp.GateEnabled, pp.FilterInstalled = snapshot.Ptr(true), snapshot.Ptr(true)
		pp.AddEvidence(stated, StatedEvidence+" (--proxy=configured): the peer proxy is set up: gate on, --peer-ca-file set")
		return pp
	case ProxyOff:
		pp.GateEnabled, pp.FilterInstalled = snapshot.Ptr(false), snapshot.Ptr(false)
		pp.AddEvidence(stated, StatedEvidence+" (--proxy=off): feature gate UnknownVersionInteroperabilityProxy off")
		return pp
	}
	gate := GateDefault(v)
	state := "off"
	if gate {
		state = "on"
	}
	pp.GateEnabled, pp.FilterInstalled = snapshot.Ptr(gate), snapshot.Ptr(false)
	pp.AddEvidence(snapshot.EvidenceKind{Basis: snapshot.EvidenceAssumed, Topics: snapshot.TopicGate | snapshot.TopicFilter},
		fmt.Sprintf(AssumedEvidence+" (--proxy=default): kube-apiserver %s defaults: gate %s, no --peer-ca-file, so no proxy filter and nothing is proxied; pass --proxy=configured to rehearse a plane with the peer proxy set up", v.MinorString(), state))
	return pp
}

// StatedSource names the installer configuration GateOn and FilterInstalled took what the
// snapshot did not observe from; "" when they took nothing from it (all observed, or assumed).
func StatedSource(srv *snapshot.Server) string {
	if pp := srv.PeerProxy; pp.GateEnabled != nil && pp.FilterInstalled != nil {
		return ""
	}
	if sp, ok := statedProxy(srv); ok {
		return sp.Source
	}
	return ""
}
