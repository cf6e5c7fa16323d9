package mvp

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Learns returns PeerIncluded when server s holds peer p's discovery in its peer cache, from the state
// the snapshot records, or why it does not. It is PeerOf plus the fetch itself: s's peer CA
// must trust p's serving certificate and p's advertise address must accept connections. A live
// snapshot rarely records either; the server's own peer-aggregated /apis is then the evidence
// of what it learned (LearnedView).
func Learns(s, p *snapshot.Server) PeerExclusion {
	if why := PeerOf(s, p); why.Excluded() {
		return why
	}
	if t := s.PeerProxy.PeerCATrustsPeers; t != nil && !*t {
		return PeerNotTrusted
	}
	if a := p.PeerProxy.AdvertiseAddressReachable; a != nil && !*a {
		return PeerAdvertiseUnreachable
	}
	return PeerIncluded
}

// LearnedView returns the group/version/resources server s has learned from its peers, read
// from its own default /apis, and whether that evidence exists. From 1.35 a server that
// aggregates discovery lists in its default /apis exactly its own groups and those of the
// peers it fetched (docs/behaviour.md §7), so a GVR of a non-core group that a peer serves but
// s does not list has not been learned: s answers 404 for it. There is no evidence before 1.35,
// without aggregation, or when the document was not recorded; the core group (/api) is never
// aggregated, so it has none either. The list is s.PeerAggregated itself: the caller indexes
// it as it needs and must not modify it.
func LearnedView(s *snapshot.Server) ([]snapshot.Resource, bool) {
	if on, _ := AggregatesDiscovery(s); !on || !s.Reachable || len(s.PeerAggregated) == 0 {
		return nil, false
	}
	return s.PeerAggregated, true
}

// Cause is one possible reason a server has not learned what a peer serves, with how to
// confirm it.
type Cause struct {
	// Name is short and stable: tls-trust, advertise-address, endpoint-resolution, lease-list,
	// start-up-race, retries-exhausted.
	Name    string `json:"name"`
	Text    string `json:"text"`
	Confirm string `json:"confirm"`
	// Fix is what would make the server learn it, in operator language.
	Fix string `json:"fix,omitempty"`
}

// Peer-discovery sync error types of apiserver_peer_discovery_sync_errors_total (1.36+).
const (
	SyncErrorFetch     = "fetch_discovery"
	SyncErrorHostPort  = "hostport_resolution"
	SyncErrorLeaseList = "lease_list"
	// PeerDiscoverySyncErrorsMetric (1.36+) counts those failures by type
	// (internal/apimetrics reads it by this name; the peer-proxy families are in metrics.go).
	PeerDiscoverySyncErrorsMetric = "apiserver_peer_discovery_sync_errors_total"
)

// UnlearnedCauses lists why server s may not have learned what peers serve, most likely
// first, from the evidence the snapshot holds: simulated state, s's peer-discovery sync error
// counters, whether the peers' advertise addresses answered, and the version's known defects.
func UnlearnedCauses(s *snapshot.Server, peers []*snapshot.Server) []Cause {
	names := make([]string, 0, len(peers))
	var unreachable []string
	for _, p := range peers {
		names = append(names, p.Name)
		if a := p.PeerProxy.AdvertiseAddressReachable; a != nil && !*a {
			unreachable = append(unreachable, fmt.Sprintf("%s (%s)", p.Name, orUnknown(p.PeerAdvertiseAddress)))
		}
	}
	sort.Strings(names)
	peerList := strings.Join(names, ", ")
	metrics := fmt.Sprintf("read %s's /metrics: %s{type=...} grows while it fails", s.Name, PeerDiscoverySyncErrorsMetric)
	tls := Cause{Name: "tls-trust",
		Text:    fmt.Sprintf("%s's --peer-ca-file does not trust %s's serving certificate (e.g. the front-proxy CA instead of the cluster CA)", s.Name, peerList),
		Confirm: fmt.Sprintf("%s; its log says \"Error syncing discovery for peer lease\" with x509: certificate signed by unknown authority", metrics),
		Fix:     fmt.Sprintf("make %s's --peer-ca-file the CA that signed %s's serving certificate", s.Name, peerList)}
	advertise := Cause{Name: "advertise-address",
		Text:    fmt.Sprintf("%s's peer-advertise address is not reachable from %s", peerList, s.Name),
		Confirm: fmt.Sprintf("compare the kubernetes.io/peer-advertise-address annotation of %s's identity lease with where it listens: the address published is --advertise-address and --secure-port (observed on 1.36: --peer-advertise-ip/--peer-advertise-port do not change it); %s", peerList, metrics)}
	advertise.Fix = fmt.Sprintf("make the advertised address of %s reachable from %s", peerAddresses(peers), s.Name)
	if len(unreachable) > 0 {
		advertise.Text = fmt.Sprintf("the peer-advertise address of %s did not accept a connection", strings.Join(unreachable, ", "))
	}
	hostPort := Cause{Name: "endpoint-resolution",
		Text:    fmt.Sprintf("%s cannot resolve %s's endpoint (no peer endpoint lease)", s.Name, peerList),
		Confirm: fmt.Sprintf("check that the feature gate and --peer-advertise-* are set on %s; %s", peerList, metrics),
		Fix:     fmt.Sprintf("turn the UnknownVersionInteroperabilityProxy gate on on %s, so it writes the peer endpoint lease %s resolves", peerList, s.Name)}
	leases := Cause{Name: "lease-list",
		Text:    fmt.Sprintf("%s cannot list the identity leases in kube-system", s.Name),
		Confirm: metrics,
		Fix:     fmt.Sprintf("let %s list the identity leases in kube-system", s.Name)}
	retries := Cause{Name: "retries-exhausted",
		Text: fmt.Sprintf("%s gave up on %s after %d failed fetches and waits for the next identity-lease event", s.Name, peerList,
			PeerDiscoveryRetries(versionOf(s))),
		Confirm: fmt.Sprintf("%s's log says \"Dropping lease ... out of the queue\"; restarting %s (a lease event) makes %s fetch again", s.Name, peerList, s.Name),
		Fix:     fmt.Sprintf("restart %s (an identity-lease event), so %s fetches its discovery again", peerList, s.Name)}
	race := Cause{Name: "start-up-race",
		Text: fmt.Sprintf("%s tried %s before its endpoint lease existed and dropped it after %d retries (a 1.33/1.34 defect)", s.Name, peerList,
			PeerDiscoveryRetries(versionOf(s))),
		Confirm: fmt.Sprintf("%s's log says \"missing port in address\" then \"Dropping lease\"; a lease event (restart any apiserver) makes it fetch again", s.Name),
		Fix:     fmt.Sprintf("restart any apiserver (an identity-lease event), so %s fetches %s's discovery again", s.Name, peerList)}

	if t := s.PeerProxy.PeerCATrustsPeers; t != nil && !*t {
		return []Cause{tls}
	}
	if len(unreachable) > 0 {
		return []Cause{advertise, tls, retries}
	}
	errs := s.PeerProxy.PeerDiscoverySyncErrors
	switch {
	case errs[SyncErrorFetch] > 0:
		return []Cause{tls, advertise, retries}
	case errs[SyncErrorHostPort] > 0:
		return []Cause{hostPort, retries}
	case errs[SyncErrorLeaseList] > 0:
		return []Cause{leases}
	case EraOf(versionOf(s)) == EraDisc:
		return []Cause{race, tls, advertise}
	case errs != nil:
		// Counters read and all zero: fetches do not fail now; s stopped trying.
		return []Cause{retries, tls, advertise}
	}
	return []Cause{tls, advertise, retries}
}

// peerAddresses names peers with their advertised addresses: "kas-b (10.0.0.2:6443)".
func peerAddresses(peers []*snapshot.Server) string {
	parts := make([]string, len(peers))
	for i, p := range peers {
		parts[i] = fmt.Sprintf("%s (%s)", p.Name, orUnknown(p.PeerAdvertiseAddress))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

func orUnknown(s string) string {
	if s == "" {
		return "address unknown"
	}
	return s
}
