package route

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
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
		vd.alsoPossible = append(vd.alsoPossible, mvp.Answer{Outcome: other.outcome, Unavailable: other.unavailable})
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

// Switch is a coming change of a server's answer to the request while the crash of a peer
// unfolds (mvp.CrashedPeers): its endpoint key expires, then its peers rebuild their
// peer-discovery caches (docs/behaviour.md §11.4). Its JSON is part of the Explanation
// contract (docs/explanation.md).
type Switch struct {
	// Event is what makes the answer change: mvp.EndpointKeyExpiry or mvp.PeerDiscoveryRebuild.
	Event mvp.CrashEvent `json:"event"`
	// Servers are the crashed peers the event concerns.
	Servers []string `json:"servers"`
	// From and To are the answer before and after, as keys (mvp.OutcomeKey).
	From string `json:"from"`
	To   string `json:"to"`
	// Status is the HTTP status of To as Decision.Status has it.
	Status *int `json:"status"`
	// AlsoPossible are the other answers after the switch (the random peer choice).
	AlsoPossible []string `json:"alsoPossible,omitempty"`
	// Earliest and Latest bound when the switch comes (UTC); a missing one is not bounded on
	// that side. A rebuild has no earliest bound: a trigger may come at any moment.
	Earliest *time.Time `json:"earliest,omitempty"`
	Latest   *time.Time `json:"latest,omitempty"`
	// Triggers are the events that bring a rebuild before Latest (mvp.RebuildTriggers).
	Triggers []mvp.RebuildTrigger `json:"triggers,omitempty"`
	// IfStopped is set when a peer in Servers did not answer but renewed its identity lease too
	// recently to be known stopped (mvp.DeadBy): the switch comes only if it has stopped.
	IfStopped bool `json:"ifStopped,omitempty"`
}

// crashStage is the snapshot after one more event of the crash timeline, as a router.
type crashStage struct {
	event  mvp.CrashEvent
	peers  []mvp.CrashedPeer
	router *Router
}

// crashStages are the routers of the crash timeline: the first while every crashed peer's
// endpoint key that may live still lives, then one per key expiry (earliest window first), then
// after the peers' rebuild. None when no crash is unfolding.
func (r *Router) crashStages() []crashStage {
	crashed := mvp.CrashedPeers(r.snap)
	if len(crashed) == 0 {
		return nil
	}
	sort.SliceStable(crashed, func(i, j int) bool { return windowStart(crashed[i]).Before(windowStart(crashed[j])) })
	servers := append([]snapshot.Server(nil), r.snap.Servers...)
	byName := func(name string) *snapshot.Server {
		for i := range servers {
			if servers[i].Name == name {
				return &servers[i]
			}
		}
		return nil
	}
	stage := func(event mvp.CrashEvent, peers []mvp.CrashedPeer) crashStage {
		snap := *r.snap
		snap.Servers = append([]snapshot.Server(nil), servers...)
		return crashStage{event: event, peers: peers, router: NewRouter(&snap).WithCapabilities(r.capable)}
	}
	for _, c := range crashed {
		if !c.KeyExpired {
			keepEndpointKey(byName(c.Server.Name))
		}
	}
	stages := []crashStage{stage("", nil)}
	for _, c := range crashed {
		if !c.KeyExpired {
			expireEndpointKey(byName(c.Server.Name))
			stages = append(stages, stage(mvp.EndpointKeyExpiry, []mvp.CrashedPeer{c}))
		}
	}
	for i := range servers { // every peer rebuilds its peer-discovery cache
		servers[i].PeerProxy.DroppedByPeers = mvp.DroppedAtRebuild(&servers[i])
	}
	return append(stages, stage(mvp.PeerDiscoveryRebuild, crashed))
}

// windowStart orders crashed peers by when their endpoint key may first expire; an expired or
// unbounded key sorts last.
func windowStart(c mvp.CrashedPeer) time.Time {
	if c.Window == nil || c.KeyExpired {
		return time.Unix(1<<40, 0)
	}
	return c.Window.AliveUntil
}

// crashTimeline is the switches of server's answer to req along the stages: one per stage whose
// answer differs from the one before.
func crashTimeline(server string, req Request, stages []crashStage) []Switch {
	var out []Switch
	var before Decision
	for i, s := range stages {
		v := s.router.byName[server]
		if v == nil {
			return nil
		}
		d := s.router.decide(v, req)
		if i > 0 && !sameAnswer(before, d) {
			out = append(out, newSwitch(s, before, d))
		}
		before = d
	}
	return out
}

// sameAnswer reports whether two decisions give a client the same answers.
func sameAnswer(a, b Decision) bool {
	return outcomeText(a) == outcomeText(b) && strings.Join(a.AlsoPossible, ",") == strings.Join(b.AlsoPossible, ",")
}

func newSwitch(s crashStage, before, after Decision) Switch {
	sw := Switch{Event: s.event, From: outcomeText(before), To: outcomeText(after), Status: after.Status, AlsoPossible: after.AlsoPossible}
	for _, c := range s.peers {
		sw.Servers = append(sw.Servers, c.Server.Name)
		sw.IfStopped = sw.IfStopped || !c.Stopped
	}
	switch s.event {
	case mvp.EndpointKeyExpiry:
		if w := s.peers[0].Window; w != nil {
			sw.Earliest, sw.Latest = timePtr(w.AliveUntil), timePtr(w.GoneBy)
		}
	case mvp.PeerDiscoveryRebuild:
		sw.Triggers = mvp.RebuildTriggers
		// The first garbage collection of a crashed peer's identity lease is a lease event
		// that rebuilds every cache: the earliest of their bounds is the rebuild's.
		for _, c := range s.peers {
			if !c.GCBy.IsZero() && (sw.Latest == nil || c.GCBy.Before(*sw.Latest)) {
				sw.Latest = timePtr(c.GCBy)
			}
		}
	}
	return sw
}

// crashTimelines sets each decision's Timeline and its plain form.
func (r *Router) crashTimelines(req Request, ds []Decision) {
	stages := r.crashStages()
	if len(stages) == 0 {
		return
	}
	for i := range ds {
		ds[i].Timeline = crashTimeline(ds[i].Server, req, stages)
		ds[i].Plain.TimelineIntro, ds[i].Plain.Timeline = r.plainTimeline(ds[i], stages[len(stages)-1].peers)
	}
}

func timePtr(t time.Time) *time.Time { return &t }

// expireEndpointKey is the crashed server srv after its endpoint key expired: peers resolve
// its address no more.
func expireEndpointKey(srv *snapshot.Server) {
	srv.PeerProxy.EndpointResolvable, srv.PeerProxy.EndpointWindow = snapshot.Ptr(false), nil
}

// keepEndpointKey is the crashed server srv while its endpoint key still lives.
func keepEndpointKey(srv *snapshot.Server) {
	srv.PeerProxy.EndpointResolvable, srv.PeerProxy.EndpointWindow = snapshot.Ptr(true), nil
}
