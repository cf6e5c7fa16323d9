package route

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
)

// resolveWithin is resolve when a candidate stopped answering so recently that its endpoint
// key may or may not have expired at the snapshot (mvp.EndpointResolvesKnown): the decision is
// made for both, the likelier one at the snapshot's time (mvp.EndpointLikelyAlive) is the
// answer, and the other one is an alternative that holds until or from a known moment — never
// one confident answer that may be wrong.
func (r *Router) resolveWithin(vd *verdict, cands []*serverView, anyFailureIs503 bool) {
	vd.cands = cands
	var unknown []*serverView
	for _, p := range cands {
		if _, known := mvp.EndpointResolvesKnown(p.srv); !known {
			unknown = append(unknown, p)
		}
	}
	if len(unknown) == 0 {
		vd.proxy = resolve(vd, cands, anyFailureIs503, nil)
		r.applyProxy(vd)
		return
	}
	w := &endpointWindow{unknown: unknown, likelyAlive: !r.snap.TakenAt.IsZero()}
	alive := map[*serverView]bool{}
	for _, p := range unknown {
		alive[p] = true
		w.windows = append(w.windows, *p.srv.PeerProxy.EndpointWindow)
		w.likelyAlive = w.likelyAlive && mvp.EndpointLikelyAlive(*p.srv.PeerProxy.EndpointWindow, r.snap.TakenAt)
	}
	// The likelier answer at the snapshot's time is the verdict; the other one is an
	// alternative, so that whichever the server gives is one the prediction allows.
	answerAlive, otherAlive := map[*serverView]bool(nil), alive
	if w.likelyAlive {
		answerAlive, otherAlive = alive, nil
	}
	other := verdict{v: vd.v, req: vd.req, gvr: vd.gvr, proxy: resolve(vd, cands, anyFailureIs503, otherAlive)}
	r.applyProxy(&other)
	vd.proxy = resolve(vd, cands, anyFailureIs503, answerAlive)
	r.applyProxy(vd)
	vd.inferred, vd.window = true, w
	w.other = candidateResult{other.outcome, other.unavailable}
	if w.other != (candidateResult{vd.outcome, vd.unavailable}) {
		vd.alsoPossible = append(vd.alsoPossible, mvp.OutcomeKey(other.outcome, other.unavailable))
	}
}

// windowTimes are the window's bounds as people read them (UTC clock times).
func (w *endpointWindow) windowTimes() (aliveUntil, goneBy string) {
	var until, gone []string
	for _, t := range w.windows {
		until = append(until, t.AliveUntil.UTC().Format("15:04:05"))
		gone = append(gone, t.GoneBy.UTC().Format("15:04:05"))
	}
	return strings.Join(until, ", "), strings.Join(gone, ", ")
}

// sayWindow words the window before the resolution's own steps.
func (w *endpointWindow) sayWindow(st *steps) {
	aliveUntil, goneBy := w.windowTimes()
	st.add("%s stopped answering; its endpoint key lives until at least %s and is gone by %s (UTC): at the snapshot it may or may not have expired",
		viewNames(w.unknown), aliveUntil, goneBy)
	st.say("", "%s stopped answering; its published address stays resolvable until between %s and %s UTC, and the snapshot falls in that window",
		viewNames(w.unknown), aliveUntil, goneBy)
}

// sayAlternative words the other half of the window, after the resolution's steps.
func (w *endpointWindow) sayAlternative(vd *verdict, d *Decision, st *steps) {
	if w.other == (candidateResult{vd.outcome, vd.unavailable}) {
		return
	}
	aliveUntil, goneBy := w.windowTimes()
	other, answer := mvp.OutcomeKey(w.other.outcome, w.other.unavailable), mvp.OutcomeKey(vd.outcome, vd.unavailable)
	if w.likelyAlive {
		d.Alternatives = append(d.Alternatives, fmt.Sprintf("%s once the endpoint key of %s has expired (between %s and %s UTC)",
			other, viewNames(w.unknown), aliveUntil, goneBy))
		st.add("likelier at the snapshot (the first half of the window): %s; from %s at the latest: %s", answer, goneBy, other)
		return
	}
	d.Alternatives = append(d.Alternatives, fmt.Sprintf("%s while the endpoint key of %s lives (until between %s and %s UTC)",
		other, viewNames(w.unknown), aliveUntil, goneBy))
	st.add("until then: %s; from %s at the latest: %s", other, goneBy, answer)
}

// outcomeText is the decision's outcome as alternatives name it (mvp.OutcomeKey).
func outcomeText(d Decision) string { return mvp.OutcomeKey(d.Outcome, d.Unavailable) }
