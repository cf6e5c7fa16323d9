package mvp

import (
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// The 1.33/1.34 defect of docs/behaviour.md §11.2: the peer-discovery cache's rebuild checks the
// wrong error variable, so a peer whose discovery fetch gets an answer other than 200 makes the
// server dereference nil, and the worker's HandleCrash re-panics: the whole kube-apiserver exits.
// apiserver v0.33.0–v0.34.13 peer_discovery.go (fetchNewDiscoveryFor); 1.35 checks the right
// variable.

// ExitsOnFailedPeerFetch reports whether srv runs that code: a 1.33/1.34 binary with the peer
// proxy built (gate on and --peer-ca-file: the peer-discovery cache exists only with the
// filter). An assumed filter counts as none, as everywhere else.
func ExitsOnFailedPeerFetch(srv *snapshot.Server) bool {
	if EraOf(versionOf(srv)) != EraDisc {
		return false
	}
	on, _ := FilterInstalled(srv)
	return on
}

// PeersFailingFetch are the peers whose discovery fetch at s's next rebuild of its
// peer-discovery cache would reach the proxy and get an error answer: they stopped answering,
// still hold an identity lease (a rebuild walks every lease), and their endpoint key resolves or
// may still resolve (inside the crash window), so the fetch is dialled and fails with a 503 — not
// refused earlier for want of an address. Any identity lease event starts that rebuild
// (RebuildsPeerCaches): an apiserver starting, restarting or stopping.
func PeersFailingFetch(snap *snapshot.Snapshot, s *snapshot.Server) []*snapshot.Server {
	var out []*snapshot.Server
	for i := range snap.Servers {
		p := &snap.Servers[i]
		if p.Reachable || p.ID == s.ID || p.IdentityLease == nil {
			continue
		}
		if resolves, known := EndpointResolvesKnown(p); resolves || !known {
			out = append(out, p)
		}
	}
	return out
}

// RebuildExitThreat is what would take a server that ExitsOnFailedPeerFetch down at its next
// rebuild: the peers whose fetch would fail (PeersFailingFetch), and the moment the last of
// their endpoint keys is certainly gone — zero when some key's expiry is not bounded.
type RebuildExitThreat struct {
	Peers    []string
	SafeFrom time.Time
}

// RebuildExitThreatOf is srv's threat, and false when there is none: srv does not run the
// defective rebuild, or no peer's fetch would fail now.
func RebuildExitThreatOf(snap *snapshot.Snapshot, srv *snapshot.Server) (RebuildExitThreat, bool) {
	var t RebuildExitThreat
	if !ExitsOnFailedPeerFetch(srv) {
		return t, false
	}
	bounded := true
	for _, p := range PeersFailingFetch(snap, srv) {
		t.Peers = append(t.Peers, p.Name)
		switch w := p.PeerProxy.EndpointWindow; {
		case w == nil:
			bounded = false
		case w.GoneBy.After(t.SafeFrom):
			t.SafeFrom = w.GoneBy
		}
	}
	if !bounded {
		t.SafeFrom = time.Time{}
	}
	return t, len(t.Peers) > 0
}
