package mvp

import (
	"fmt"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Era is one implementation of the peer proxy (docs/behaviour.md §1). The mechanism changed
// three times; the binary's minor version picks which code a server runs.
type Era string

const (
	// EraNone: before 1.28 there is no Mixed Version Proxy.
	EraNone Era = "none"
	// EraSV (1.28–1.31) routes on StorageVersion objects; any failed peer-address lookup is 503.
	EraSV Era = "SV"
	// EraSV2 (1.32) is SV, but 503 only when no peer address resolves.
	EraSV2 Era = "SV2"
	// EraDisc (1.33–1.34) routes on local and peer discovery; core group keyed "core".
	EraDisc Era = "DISC"
	// EraDiscAgg (1.35) adds peer-aggregated /apis and CRD/APIService exclusion; core keyed "".
	EraDiscAgg Era = "DISC+AGG"
	// EraDiscAgg2 (1.36+) is DISC+AGG, beta and on by default.
	EraDiscAgg2 Era = "DISC+AGG2"
)

// The minor versions where the rules change (docs/behaviour.md §1, "Rules by version"). They
// are unexported on purpose: other packages ask the predicates below, never compare minors.
const (
	firstProxyMinor          = 28 // the Mixed Version Proxy exists (alpha)
	firstSV2Minor            = 32 // 503 only when no candidate resolves
	firstDiscoveryMinor      = 33 // routing on discovery instead of StorageVersions
	firstAggregationMinor    = 35 // peer-aggregated /apis, profile=nopeer, CRD/APIService exclusion
	firstGateDefaultOnMinor  = 36 // UnknownVersionInteroperabilityProxy beta, on by default
	firstGVRMetricLabelMinor = 36 // apiserver_rerouted_request_total gains group/version/resource
	// NewestKnownMinor is the newest minor version whose rules mvpctl knows. Newer versions are
	// assumed to behave like it, and every explanation says so.
	NewestKnownMinor = 38
	// NewestObservedMinor is the newest minor whose rules the e2e suite demonstrates on a real
	// kube-apiserver. The rules of the minors after it, up to NewestKnownMinor, are read from
	// the release's published prerelease modules (file and line cited at each rule): they are
	// provisional, and every explanation says so.
	NewestObservedMinor = 37
)

// EraOf returns the era of a Kubernetes version.
func EraOf(v snapshot.Version) Era {
	if v.Major != 1 || v.Minor < firstProxyMinor {
		return EraNone
	}
	switch m := v.Minor; {
	case m < firstSV2Minor:
		return EraSV
	case m < firstDiscoveryMinor:
		return EraSV2
	case m < firstAggregationMinor:
		return EraDisc
	case m < firstGateDefaultOnMinor:
		return EraDiscAgg
	default:
		return EraDiscAgg2
	}
}

// HasProxy reports whether the era has a Mixed Version Proxy at all.
func (e Era) HasProxy() bool { return e != EraNone && e != "" }

// RoutesOnStorageVersions reports whether the era finds peers through StorageVersion objects
// (1.28–1.32) rather than discovery.
func (e Era) RoutesOnStorageVersions() bool { return e == EraSV || e == EraSV2 }

// RoutesOnDiscovery reports whether the era routes on a peer-discovery cache (1.33+), which
// every identity lease event rebuilds from scratch (docs/behaviour.md §11.4).
func (e Era) RoutesOnDiscovery() bool { return e.HasProxy() && !e.RoutesOnStorageVersions() }

// AnyUnresolvedPeerIs503 is the 1.28–1.31 rule: one candidate whose address does not resolve
// fails the request, even when another candidate resolves (docs/behaviour.md §11.1).
func (e Era) AnyUnresolvedPeerIs503() bool { return e == EraSV }

// ExcludesCRDsAndAPIServices reports whether CRD and aggregated APIService group/versions are
// removed from peers' discovery, so never proxied (1.35+, docs/behaviour.md §6).
func (e Era) ExcludesCRDsAndAPIServices() bool { return e == EraDiscAgg || e == EraDiscAgg2 }

// LearnsPeersAggregatedView reports whether the era asks its peers for discovery without
// profile=nopeer, so that a 1.35+ peer answers with its peer-aggregated /apis and the server
// believes the peer serves everything that document lists (1.33–1.34, docs/behaviour.md §4.2).
func (e Era) LearnsPeersAggregatedView() bool { return e == EraDisc }

// CoreKey is the group name the era's code uses for the core group in its routing key. It
// changes no outcome (local cache, peer cache and request use the same key) but is what a
// reader of the apiserver's logs sees.
func (e Era) CoreKey() string {
	if e == EraDiscAgg || e == EraDiscAgg2 {
		return `""`
	}
	return `"core"`
}

// Describe names the era of v for explanations, saying when v is newer than the rules known.
func Describe(v snapshot.Version) string {
	s := fmt.Sprintf("%s era (%s)", EraOf(v), v.MinorString())
	if Newer(v) {
		s += fmt.Sprintf(", assumed to behave like 1.%d", NewestKnownMinor)
	}
	if ProvisionalRules(v) {
		s += ", " + provisionalWords(v)
	}
	return s
}

// ProvisionalRules reports whether v's rules are read from published prerelease modules, no
// kube-apiserver of v having been observed (NewestObservedMinor); a version newer than
// NewestKnownMinor is routed by those rules too.
func ProvisionalRules(v snapshot.Version) bool { return v.Major == 1 && v.Minor > NewestObservedMinor }

// provisionalWords says why the rules of v are provisional.
func provisionalWords(v snapshot.Version) string {
	return fmt.Sprintf("rules provisional: the 1.%d rules are read from the published k8s.io/apiserver and k8s.io/api 1.%d prerelease modules, not observed on a kube-apiserver", min(v.Minor, NewestKnownMinor), min(v.Minor, NewestKnownMinor))
}

// Newer reports whether v is newer than the newest minor whose rules mvpctl knows.
func Newer(v snapshot.Version) bool { return v.Major == 1 && v.Minor > NewestKnownMinor }

// Assumptions returns what reading snap assumes rather than knows about the rules its servers
// follow: one line per server whose version is newer than NewestObservedMinor, for commands to
// say with their result. (It lives here, not in pkg/snapshot, because pkg/mvp imports
// pkg/snapshot: the snapshot does not know which versions mvpctl knows.)
func Assumptions(snap *snapshot.Snapshot) []string {
	var lines []string
	for _, srv := range snap.Servers {
		v, err := snapshot.ParseVersion(srv.Version)
		switch {
		case err != nil || !ProvisionalRules(v):
		case Newer(v):
			lines = append(lines, fmt.Sprintf("server %s runs %s, newer than mvpctl's newest known release 1.%d: routing assumes 1.%d's rules (%s)",
				srv.Name, srv.Version, NewestKnownMinor, NewestKnownMinor, provisionalWords(v)))
		default:
			lines = append(lines, fmt.Sprintf("server %s runs %s: %s", srv.Name, srv.Version, provisionalWords(v)))
		}
	}
	return lines
}
