package route

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
)

// resolveWithin is resolveAndProxy when a candidate stopped answering so recently that its
// endpoint key may or may not have expired at the snapshot (mvp.EndpointResolvesKnown): the
// decision is made for both, the likelier one at the snapshot's time (mvp.EndpointLikelyAlive)
// is the answer, and the other one is an alternative that holds until or from a known moment —
// never one confident answer that may be wrong.
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
	likelyAlive := !r.snap.TakenAt.IsZero()
	for _, p := range unknown {
		alive[p] = true
		w := p.srv.PeerProxy.EndpointWindow
		aliveUntil = append(aliveUntil, w.AliveUntil.UTC().Format("15:04:05"))
		goneBy = append(goneBy, w.GoneBy.UTC().Format("15:04:05"))
		likelyAlive = likelyAlive && mvp.EndpointLikelyAlive(*w, r.snap.TakenAt)
	}
	st.add("%s stopped answering; its endpoint key lives until at least %s and is gone by %s (UTC): at the snapshot it may or may not have expired",
		viewNames(unknown), strings.Join(aliveUntil, ", "), strings.Join(goneBy, ", "))
	st.say("", "%s stopped answering; its published address stays resolvable until between %s and %s UTC, and the snapshot falls in that window",
		viewNames(unknown), strings.Join(aliveUntil, ", "), strings.Join(goneBy, ", "))
	// The likelier answer at the snapshot's time is decided with its steps; the other one is
	// an alternative, so that whichever the server gives is one the prediction allows.
	answerAlive, otherAlive := map[*serverView]bool(nil), alive
	if likelyAlive {
		answerAlive, otherAlive = alive, nil
	}
	other := *d
	other.Peers, other.Candidates = append([]string(nil), d.Peers...), append([]Candidate(nil), d.Candidates...)
	other.Alternatives, other.AlsoPossible = nil, nil
	otherSteps := steps{list: append([]Step(nil), st.list...), quiet: st.quiet}
	r.resolveAndProxy(v, req, gvr, cands, anyFailureIs503, otherAlive, &other, &otherSteps)
	r.resolveAndProxy(v, req, gvr, cands, anyFailureIs503, answerAlive, d, st)
	d.Inferred = true
	if other.Outcome == d.Outcome && other.Unavailable == d.Unavailable {
		return
	}
	d.AlsoPossible = append(d.AlsoPossible, outcomeText(other))
	if likelyAlive {
		d.Alternatives = append(d.Alternatives, fmt.Sprintf("%s once the endpoint key of %s has expired (between %s and %s UTC)",
			outcomeText(other), viewNames(unknown), strings.Join(aliveUntil, ", "), strings.Join(goneBy, ", ")))
		st.add("likelier at the snapshot (the first half of the window): %s; from %s at the latest: %s", outcomeText(*d), strings.Join(goneBy, ", "), outcomeText(other))
		return
	}
	d.Alternatives = append(d.Alternatives, fmt.Sprintf("%s while the endpoint key of %s lives (until between %s and %s UTC)",
		outcomeText(other), viewNames(unknown), strings.Join(aliveUntil, ", "), strings.Join(goneBy, ", ")))
	st.add("until then: %s; from %s at the latest: %s", outcomeText(other), strings.Join(goneBy, ", "), outcomeText(*d))
}

// outcomeText is the decision's outcome as alternatives name it (mvp.OutcomeKey).
func outcomeText(d Decision) string { return mvp.OutcomeKey(d.Outcome, d.Unavailable) }
