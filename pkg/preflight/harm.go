package preflight

import (
	"fmt"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/simulate"
)

// The severity of a 404/503 window is decided by its harm to clients, not by whether the
// operator could close it: a gate that fails every ordinary upgrade gets switched off, and then
// misses the upgrade that breaks clients.
//
//   - Blocking: a replayed client meets the window; or the GVR is usable today (every
//     reachable apiserver answers it, locally or by proxy, at the start), so a client may
//     depend on it, and no replayed traffic says otherwise.
//   - Warning: the GVR is usable today but the replayed traffic holds no client of it (the
//     finding says how much traffic was read, over what span); or it is not usable at the
//     start (new in the target, or already 404 or 503 on some apiserver) and no replayed
//     client meets the window; a replayed client that fails at the start on the servers it
//     fails on later is already failing, not harmed by the upgrade.

// harm is what decides a window's severity: which GVRs clients can use at the start, the
// replayed traffic when there is some, and the client evidence of the cluster (replay.ClientEvidence:
// its request counters and the other sources read).
type harm struct {
	usable map[string]bool
	// served: GVRs some apiserver served at the start, usable from all or not.
	served map[string]bool
	tr     *replay.Report
	gvrs   map[string]*replay.GVRTraffic
	ev     *replay.ClientEvidence
	// window is the look-back the evidence must cover to show that no client uses a GVR.
	window time.Duration
}

func newHarm(sim *simulate.Simulation, tr *replay.Report, ev *replay.ClientEvidence, window time.Duration) harm {
	h := harm{usable: map[string]bool{}, served: map[string]bool{}, tr: tr, gvrs: map[string]*replay.GVRTraffic{}, ev: ev, window: window}
	start := sim.Steps[0]
	for _, srv := range start.Snapshot().Servers {
		if !srv.Reachable {
			continue
		}
		for _, r := range srv.Resources {
			h.served[r.GVR().String()] = true
			h.usable[r.GVR().String()] = true
		}
	}
	// Every reachable server answers a GVR some server serves, unless the start's routing
	// has a 404 or 503 cell for it.
	for _, r := range sim.AtRisk {
		if r.StepN == 0 {
			h.usable[r.GVR] = false
		}
	}
	if tr != nil {
		for i := range tr.GVRs {
			h.gvrs[tr.GVRs[i].GVR] = &tr.GVRs[i]
		}
	}
	return h
}

// of decides the severity of a window of gvr and says why, in words that end its message.
func (h harm) of(gvr string) (Severity, string) {
	g := h.gvrs[gvr]
	clients := h.ev.ClientsOf(gvr)
	switch {
	case g != nil && g.AtRisk > 0:
		return Blocking, "replayed clients meet it: " + agentsOf(g)
	case g != nil && g.AlreadyFailing > 0 && !h.usable[gvr]:
		return Warning, "its replayed clients already get 404 or 503 at the start on " + strings.Join(g.FailingAtStart, ", ") + ", so the upgrade harms none of them: " + agentsOf(g)
	case h.usable[gvr] && len(clients) > 0:
		return Blocking, "clients use it: " + clientsText(clients)
	case h.usable[gvr] && g != nil:
		return Blocking, "clients use it: " + agentsOf(g)
	case h.usable[gvr] && h.tr == nil && !h.ev.Covers():
		return Blocking, "clients may use it: every apiserver answers it at the start, and no replayed traffic (--audit-log, --requests) or client evidence says none does (" + h.ev.Missing() + ")"
	case h.usable[gvr] && !h.covered():
		return Blocking, "clients may use it: every apiserver answers it at the start, and " + h.tooShort()
	case h.usable[gvr]:
		return Warning, "every apiserver answers it at the start, but " + h.unused()
	case !h.served[gvr]:
		return Warning, "new: no apiserver serves it at the start, so no client depends on it yet" + h.noClient(clients)
	}
	return Warning, "no client can rely on it: some apiserver answers it 404 or 503 at the start" + h.noClient(clients)
}

// unused says what shows no client: the replayed traffic and the evidence read.
func (h harm) unused() string {
	var parts []string
	if h.tr != nil {
		parts = append(parts, "none of the "+h.tr.Short())
	}
	if counted := h.ev.Counted(); counted != "" && h.ev.Covers() {
		parts = append(parts, "no request counted on "+counted)
	}
	if kept := h.ev.Kept(); kept != "" {
		parts = append(parts, "no request kept by "+kept)
	}
	return strings.Join(parts, " and ") + " uses it"
}

func (h harm) noClient(clients []replay.Client) string {
	var s string
	if h.tr != nil {
		s = "; no replayed request uses it"
	}
	if len(clients) > 0 {
		s += "; counted: " + clientsText(clients)
	}
	return s
}

// evidence is what the traffic and client evidence behind a severity are.
func (h harm) evidence() []string {
	var out []string
	if h.tr != nil {
		out = append(out, fmt.Sprintf("traffic %s (%s): %s", h.tr.Source, h.tr.Format, h.tr.Read()))
	}
	if read := h.ev.Read(); read != "" {
		out = append(out, "client evidence: "+read)
	}
	if missing := h.ev.Missing(); missing != "" && h.ev != nil && len(h.ev.ReadSources()) < len(h.ev.Sources) {
		out = append(out, "client evidence not read: "+missing)
	}
	return out
}

// gv decides the severity of losing a whole group/version (a --runtime-config entry an
// upgrade skips): blocking when a client of it is seen, or when neither replayed traffic nor
// client evidence says none uses it.
func (h harm) gv(groupVersion string) (Severity, string) {
	if clients := h.ev.ClientsOf(groupVersion + "/"); len(clients) > 0 {
		return Blocking, "clients use it: " + clientsText(clients)
	}
	var agents []string
	if h.tr != nil {
		for _, g := range h.tr.GVRs {
			if replay.GVOf(g.GVR) == groupVersion {
				agents = append(agents, agentsOf(&g))
			}
		}
	}
	switch {
	case len(agents) > 0:
		return Blocking, "clients use it: " + strings.Join(agents, ", ")
	case h.tr == nil && !h.ev.Covers():
		return Blocking, "its clients may use it (no replayed traffic, --audit-log or --requests, or client evidence says none does: " + h.ev.Missing() + ")"
	case !h.covered():
		return Blocking, "its clients may use it: " + h.tooShort()
	}
	return Warning, h.unused()
}

// clientsText names clients of the evidence, a few of them.
func clientsText(cs []replay.Client) string {
	names := make([]string, 0, len(cs))
	for _, c := range cs {
		names = append(names, c.String())
	}
	return listSome(names, 5)
}

// agentsOf names a GVR's replayed clients with their request counts.
func agentsOf(g *replay.GVRTraffic) string {
	var names []string
	for _, a := range g.Agents() {
		names = append(names, fmt.Sprintf("%s (%d request(s))", a.UserAgent, a.Requests))
	}
	if len(names) == 0 {
		return fmt.Sprintf("%d request(s)", g.Requests)
	}
	return listSome(names, 5)
}
