package preflight

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// rebuildExitFindings reports the 1.33/1.34 servers that exit when a rebuild of their
// peer-discovery cache fails to fetch a peer's discovery (mvp.ExitsOnFailedPeerFetch,
// docs/behaviour.md §11.2). Blocking when a rebuild now would do it: a peer stopped answering
// and its endpoint key may still resolve, so whatever starts or stops next takes the server
// down. Otherwise a warning when the upgrade has steps: each one is a lease event, so a rebuild,
// and one failed fetch among them (a crash in the 15 s before, a peer refusing the proxy's
// client certificate, a 5xx) is enough.
func rebuildExitFindings(s *snapshot.Snapshot, steps int, evidence map[string]string) []Finding {
	var out []Finding
	for i := range s.Servers {
		srv := &s.Servers[i]
		if !srv.Reachable || !mvp.ExitsOnFailedPeerFetch(srv) {
			continue
		}
		f := Finding{Check: CheckRebuildExit.ID, Name: CheckRebuildExit.Name, Subject: srv.Name,
			Evidence: append([]string{evidence[srv.Name]}, srv.PeerProxy.Evidence...)}
		if t, ok := mvp.RebuildExitThreatOf(s, srv); ok {
			wait := "its endpoint key has expired (at most " + mvp.EndpointLeaseTTL.String() + " after it stopped)"
			if !t.SafeFrom.IsZero() {
				wait = t.SafeFrom.UTC().Format("15:04:05 UTC")
			}
			f.Severity = Blocking
			f.Message = fmt.Sprintf("%s (%s, proxy filter on) exits at the next identity lease event: %s stopped answering and may still be resolvable, so its rebuild's fetch gets a 503 and dereferences nil (%s)",
				srv.Name, srv.Version, strings.Join(t.Peers, ", "), mvp.RuleRebuildExit.Versions())
			f.Hint = fmt.Sprintf("start, restart or stop no apiserver until %s; afterwards the rebuild only drops %s (its GVRs turn 404 until it is back)", wait, strings.Join(t.Peers, ", "))
			out = append(out, f)
			continue
		}
		if steps == 0 {
			continue
		}
		f.Severity = Warning
		f.Message = fmt.Sprintf("%s (%s, proxy filter on) exits if any peer-discovery fetch fails while the upgrade runs: every step starts or stops an apiserver, so it rebuilds each time, and one answer other than 200 (a peer killed less than %s before, a peer refusing the proxy's client certificate with 401/403, a 5xx) makes it dereference nil (%s)",
			srv.Name, srv.Version, mvp.EndpointLeaseTTL, mvp.RuleRebuildExit.Versions())
		f.Hint = "upgrade the 1.33/1.34 servers first (1.35 fixed it); never start or stop an apiserver within " + mvp.EndpointLeaseTTL.String() +
			" of a crash; check that every apiserver accepts the others' proxy client certificate (--requestheader-client-ca-file, --requestheader-allowed-names) — docs/behaviour.md §11.2"
		out = append(out, f)
	}
	return out
}
