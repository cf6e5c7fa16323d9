package route

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
)

// hazards says what threatens server v whatever the request (Decision.Hazards).
func (r *Router) hazards(v *serverView) []string {
	if !mvp.ExitsOnFailedPeerFetch(v.srv) {
		return nil
	}
	failing := mvp.PeersFailingFetch(r.snap, v.srv)
	if len(failing) == 0 {
		return nil
	}
	var names, until []string
	for _, p := range failing {
		names = append(names, p.Name)
		switch w := p.PeerProxy.EndpointWindow; {
		case w != nil:
			until = append(until, w.GoneBy.UTC().Format("15:04:05")+" UTC at the latest")
		default:
			until = append(until, "its key expires")
		}
	}
	return []string{fmt.Sprintf("%s exits (nil dereference in its peer-discovery rebuild, %s) at the next identity lease event — an apiserver starting, restarting or stopping — while the endpoint key of %s lives (until %s): the rebuild dials %s and gets a 503",
		v.srv.Name, mvp.RuleRebuildExit.Versions(), strings.Join(names, ", "), strings.Join(until, "; "), strings.Join(names, ", "))}
}
