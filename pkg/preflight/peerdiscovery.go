package preflight

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/peerdiscovery"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// MVP031 judges whether a server fetches its peers' discovery now, not whether it ever
// failed: apiserver_peer_discovery_sync_errors_total only grows, and a healthy server counts
// 8–9 hostport_resolution errors at start-up, before its peers' endpoint leases exist
// (docs/behaviour.md §5.4). Nor does a short second read tell much: failed syncs are retried
// with a backoff that doubles from 5 ms (20 retries on 1.35+, about 55 min in all, §4.2), so a
// failing server may not retry for minutes. What the server learned does: its own
// peer-aggregated /apis lists what it fetched from its peers (the learned view, MVP030's diff).
//
//   - a peer's published address refused mvpctl's connection: warning;
//   - sync errors, and the learned view lacks what a peer serves: warning (the errors say why);
//   - sync errors, and the learned view lists everything its peers add: no finding — it
//     fetched them after those errors;
//   - sync errors, and the learned view cannot show it (its peers add nothing it lacks, or
//     the document is not recorded): nothing when they are hostport_resolution errors only —
//     every start-up counts them, and their lasting causes (a peer with the gate off writes no
//     endpoint lease; a dead peer) are MVP002 and MVP001 — otherwise info: the count alone
//     cannot tell old from current.

// peerDiscoveryFindings reports servers whose peer discovery fails, from the evidence the
// start records (diff is MVP030's comparison, nil when no /apis document was recorded).
func peerDiscoveryFindings(s *snapshot.Snapshot, evidence map[string]string, diff *peerdiscovery.Report) []Finding {
	var out []Finding
	for i := range s.Servers {
		srv := &s.Servers[i]
		if !srv.Reachable {
			continue
		}
		peers := peersOf(s, srv)
		errs := srv.PeerProxy.PeerDiscoverySyncErrors
		counted := errs[mvp.SyncErrorFetch] + errs[mvp.SyncErrorHostPort] + errs[mvp.SyncErrorLeaseList]
		var refused []string
		for _, p := range peers {
			if a := p.PeerProxy.AdvertiseAddressReachable; a != nil && !*a {
				refused = append(refused, p.Name)
			}
		}
		unlearned, shows := learnedView(s, srv, diff)
		counters := fmt.Sprintf("%s: fetch_discovery %g, hostport_resolution %g, lease_list %g", mvp.PeerDiscoverySyncErrorsMetric,
			errs[mvp.SyncErrorFetch], errs[mvp.SyncErrorHostPort], errs[mvp.SyncErrorLeaseList])
		var msg []string
		switch {
		case len(refused) > 0 || (counted > 0 && len(unlearned) > 0):
			if len(unlearned) > 0 {
				msg = append(msg, fmt.Sprintf("its peer-aggregated /apis lacks what %s serve(s): it has not fetched their discovery (%s)", strings.Join(unlearned, ", "), counters))
			}
			if len(refused) > 0 {
				msg = append(msg, fmt.Sprintf("the published peer address of %s did not accept a connection", strings.Join(refused, ", ")))
			}
		case counted > 0 && !shows && counted > errs[mvp.SyncErrorHostPort]:
			out = append(out, Finding{Check: CheckPeerDiscoveryFails.ID, Name: CheckPeerDiscoveryFails.Name, Severity: Info, Subject: srv.Name,
				Message:  fmt.Sprintf("%s since it started; whether it still fails cannot be told: %s", counters, blindSpot(srv, diff)),
				Evidence: []string{evidence[srv.Name]},
				Hint:     fmt.Sprintf("start-up errors are normal (docs/behaviour.md §5.4); to see whether %s's counter still grows, read it twice: mvpctl traffic --interval 1m lists the failed peer-discovery syncs between its two reads", srv.Name)})
			continue
		default:
			continue
		}
		causes := mvp.UnlearnedCauses(srv, peers)
		var names []string
		for _, c := range causes {
			names = append(names, c.Name)
		}
		out = append(out, Finding{Check: CheckPeerDiscoveryFails.ID, Name: CheckPeerDiscoveryFails.Name, Severity: Warning, Subject: srv.Name,
			Message:  fmt.Sprintf("%s: it answers 404 for what only %s serve(s) (causes, most likely first: %s)", strings.Join(msg, "; "), strings.Join(union(refused, unlearned), ", "), strings.Join(names, ", ")),
			Evidence: []string{evidence[srv.Name], counters},
			Hint:     fmt.Sprintf("most likely %s — to confirm: %s", causes[0].Text, causes[0].Confirm)})
	}
	return out
}

// learnedView returns the peers whose entries srv's recorded peer-aggregated /apis lacks, and
// whether that document can show learning at all: it is recorded and compared, and some peer
// adds an entry srv does not serve itself.
func learnedView(s *snapshot.Snapshot, srv *snapshot.Server, diff *peerdiscovery.Report) (unlearned []string, shows bool) {
	if diff == nil {
		return nil, false
	}
	seen := map[string]bool{}
	for _, d := range diff.Servers {
		if d.Name != srv.Name || d.Status != peerdiscovery.StatusAggregated {
			continue
		}
		for _, e := range d.Entries {
			if e.Class != peerdiscovery.ClassMissing {
				continue
			}
			for _, p := range e.ServedBy {
				if p != srv.Name && !seen[p] {
					seen[p] = true
					unlearned = append(unlearned, p)
				}
			}
		}
		sort.Strings(unlearned)
		exp, err := peerdiscovery.ExpectFor(s, srv.Name)
		if err != nil {
			return unlearned, false
		}
		for _, g := range exp.Items() {
			for _, v := range g.Versions {
				if !slices.Contains(exp.Sources(g.Name+"/"+v.Version), srv.Name) {
					return unlearned, true
				}
			}
		}
		return unlearned, len(unlearned) > 0
	}
	return nil, false
}

// blindSpot says why the learned view of srv cannot show whether it fetches its peers.
func blindSpot(srv *snapshot.Server, diff *peerdiscovery.Report) string {
	if diff != nil {
		for _, d := range diff.Servers {
			if d.Name == srv.Name && d.Status == peerdiscovery.StatusAggregated {
				return "its peers serve nothing it lacks, so its peer-aggregated /apis would list the same either way"
			}
		}
	}
	return "its peer-aggregated /apis, which would show what it learned, is not recorded or not comparable (see MVP030)"
}

// union is a and b without repeats, sorted.
func union(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}
