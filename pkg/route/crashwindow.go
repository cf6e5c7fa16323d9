package route

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
)

// resolveWithin is resolveAndProxy when a candidate stopped answering so recently that its
// endpoint key may or may not have expired at the snapshot (mvp.EndpointResolvesKnown): the
// decision is made for both, the steady state (expired) is the answer, and the other one is an
// alternative that holds until a known moment — never one confident answer that may be wrong.
func (r *Router) resolveWithin(v *serverView, req Request, gvr gvrKey, cands []*serverView, anyFailureIs503 bool, d *Decision, st *steps) {
	var unknown []*serverView
	for _, p := range cands {
		if _, known := mvp.EndpointResolvesKnown(p.srv); !known {
			unknown = append(unknown, p)
		}
	}
	if len(unknown) == 0 {
		r.resolveAndProxy(v, req, gvr, cands, anyFailureIs503, nil, d, st)
		return
	}
	alive := map[*serverView]bool{}
	var goneBy, aliveUntil []string
	for _, p := range unknown {
		alive[p] = true
		w := p.srv.PeerProxy.EndpointWindow
		aliveUntil = append(aliveUntil, w.AliveUntil.UTC().Format("15:04:05"))
		goneBy = append(goneBy, w.GoneBy.UTC().Format("15:04:05"))
	}
	early, earlySteps := *d, steps{list: append([]Step(nil), st.list...), quiet: st.quiet}
	early.Peers = append([]string(nil), d.Peers...)
	r.resolveAndProxy(v, req, gvr, cands, anyFailureIs503, alive, &early, &earlySteps)
	st.add("%s stopped answering; its endpoint key lives until at least %s and is gone by %s (UTC): at the snapshot it may or may not have expired",
		viewNames(unknown), strings.Join(aliveUntil, ", "), strings.Join(goneBy, ", "))
	st.say("", "%s stopped answering; its published address stays resolvable until between %s and %s UTC, and the snapshot falls in that window",
		viewNames(unknown), strings.Join(aliveUntil, ", "), strings.Join(goneBy, ", "))
	r.resolveAndProxy(v, req, gvr, cands, anyFailureIs503, nil, d, st)
	d.Inferred = true
	if early.Outcome != d.Outcome || early.Unavailable != d.Unavailable {
		d.Alternatives = append(d.Alternatives, fmt.Sprintf("%s while the endpoint key of %s lives (until between %s and %s UTC)",
			outcomeText(early), viewNames(unknown), strings.Join(aliveUntil, ", "), strings.Join(goneBy, ", ")))
		st.add("until then: %s; from %s at the latest: %s", outcomeText(early), strings.Join(goneBy, ", "), outcomeText(*d))
	}
}

// outcomeText is the outcome as alternatives name it: local, proxied, not-found,
// unavailable/transport, unavailable/endpoint-resolution.
func outcomeText(d Decision) string {
	if d.Unavailable != "" {
		return string(d.Outcome) + "/" + d.Unavailable
	}
	return string(d.Outcome)
}
