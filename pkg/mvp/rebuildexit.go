package mvp

import (
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
