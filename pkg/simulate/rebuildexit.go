package simulate

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// rebuildExitNotes says, for a moment of a simulation, which servers an apiserver starting or
// stopping then would take down (mvp.PeersFailingFetch): the crash window's first phase.
func rebuildExitNotes(s *snapshot.Snapshot) []string {
	var out []string
	for i := range s.Servers {
		srv := &s.Servers[i]
		if t, ok := mvp.RebuildExitThreatOf(s, srv); ok && srv.Reachable {
			out = append(out, fmt.Sprintf("%s exits if an apiserver starts or stops in this phase: its peer-discovery rebuild dials %s and gets a 503 (%s, docs/behaviour.md §11.2)",
				srv.Name, strings.Join(t.Peers, ", "), mvp.RuleRebuildExit.Versions()))
		}
	}
	return out
}
