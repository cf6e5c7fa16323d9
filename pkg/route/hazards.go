package route

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
)

// hazards says what threatens server v whatever the request (Decision.Hazards).
func (r *Router) hazards(v *serverView) []string {
	t, ok := mvp.RebuildExitThreatOf(r.snap, v.srv)
	if !ok {
		return nil
	}
	until := "its key expires"
	if !t.SafeFrom.IsZero() {
		until = t.SafeFrom.UTC().Format("15:04:05") + " UTC at the latest"
	}
	peers := strings.Join(t.Peers, ", ")
	return []string{fmt.Sprintf("%s exits (nil dereference in its peer-discovery rebuild, %s) at the next identity lease event — an apiserver starting, restarting or stopping — while the endpoint key of %s lives (until %s): the rebuild dials %s and gets a 503",
		v.srv.Name, mvp.RuleRebuildExit.Versions(), peers, until, peers)}
}
