package simulate

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// The 404/503 windows of the rehearsed upgrade, judged from the operator's side: a window an
// upgrade order or the peer proxy could close is blocking (MVP010); a window no order can
// avoid — every apiserver that serves the GVR is down, and no order puts another one in its
// place — is a warning (MVP011) that names the clients it affects.

// unavoidable says whether no upgrade order can keep gvr served throughout. Servers that
// serve it at the start (first) or at the end (last) are its only possible sources: when the
// end has none, the last restart of a server that serves it opens a window whatever the order
// (the target removes it); when one server is its only source, that server's restart does.
// With two sources and some server serving it at the end, upgrading one that serves it at the
// end before the other goes down keeps it served, so some order avoids the window.
func unavoidable(first, last []string) bool {
	sources := map[string]bool{}
	for _, s := range append(append([]string{}, first...), last...) {
		sources[s] = true
	}
	return len(last) == 0 || len(sources) == 1
}

// servers lists the servers of a step whose own discovery lists gvr (reachable or not), and
// whether a reachable one does.
func servers(s *snapshot.Snapshot, gvr string) (names []string, up bool) {
	g, err := snapshot.ParseGVR(gvr)
	if err != nil {
		return nil, false
	}
	for i := range s.Servers {
		if srv := &s.Servers[i]; srv.Serves(g) {
			names = append(names, srv.Name)
			up = up || srv.Reachable
		}
	}
	return names, up
}

// window is what one unavoidable GVR's findings are built from.
type window struct {
	gvr         string
	first, last []string
	steps       []string // "2 (stop kas-b)", in order
	answering   []string // servers that answer 404
}

// routingFindings turns the simulation's at-risk cells into findings: MVP010 (blocking) for
// what an order or the peer proxy can fix, one MVP011 (warning) per GVR whose window no order
// avoids. It returns the GVRs whose only windows are unavoidable: their replayed clients are
// named in MVP011, not in a blocking MVP020.
func routingFindings(sim *Simulation, tr *TrafficReport) (out []Finding, onlyUnavoidable map[string]bool) {
	fixable := map[string]bool{}
	firstSnap, lastSnap := sim.Steps[0].snap, sim.Steps[len(sim.Steps)-1].snap
	windows := map[string]*window{}
	var order []string
	for _, r := range sim.AtRisk {
		first, _ := servers(firstSnap, r.GVR)
		last, _ := servers(lastSnap, r.GVR)
		if r.Outcome == mvp.NotFound && !servedAtStep(sim, r) && unavoidable(first, last) {
			w := windows[r.GVR]
			if w == nil {
				w = &window{gvr: r.GVR, first: first, last: last}
				windows[r.GVR] = w
				order = append(order, r.GVR)
			}
			w.steps = appendNew(w.steps, fmt.Sprintf("%d (%s)", r.StepN, r.Step))
			w.answering = appendNew(w.answering, r.Server)
			continue
		}
		fixable[r.GVR] = true
		out = append(out, fixableWindow(sim, r, first, last))
	}
	onlyUnavoidable = map[string]bool{}
	for _, g := range order {
		out = append(out, unavoidableWindow(windows[g], sim, tr))
		onlyUnavoidable[g] = !fixable[g]
	}
	return out, onlyUnavoidable
}

// servedAtStep: some reachable server lists r's GVR at r's step (then r's server could reach
// it: a proxy or learning problem, not a window of the whole control plane).
func servedAtStep(sim *Simulation, r Risk) bool {
	for _, st := range sim.Steps {
		if st.N == r.StepN {
			if _, up := servers(st.snap, r.GVR); up {
				return true
			}
		}
	}
	return false
}

func fixableWindow(sim *Simulation, r Risk, first, last []string) Finding {
	status := fmt.Sprint(r.Status)
	if r.Unavailable != "" {
		status += " (" + r.Unavailable + ")"
	}
	var hint string
	switch {
	case r.Outcome == mvp.Unavailable:
		hint = "a crashed peer still holds its identity lease: restart it, or delete its lease (kube-system/" + "apiserver-…) once it is gone for good"
	case servedAtStep(sim, r):
		hint = fmt.Sprintf("another apiserver serves it at this step, but %s does not route to it (see the evidence): turn the peer proxy on on %s (the gate and --peer-ca-file) and make sure it has learned its peers", r.Server, r.Server)
	default:
		hint = orderHint(sim, r.GVR, first, last)
	}
	return Finding{Check: CheckServedEveryStep.ID, Name: CheckServedEveryStep.Name, Severity: Blocking,
		Subject: r.GVR + "@" + r.Server, Step: fmt.Sprintf("%d: %s", r.StepN, r.Step),
		Message:  fmt.Sprintf("at step %d (%s) %s answers %s for %s; served by %s", r.StepN, r.Step, r.Server, status, r.GVR, strings.Join(r.ServedBy, ", ")),
		Evidence: []string{r.Reason, "simulated from " + sim.Start},
		Hint:     hint}
}

// orderHint names an order that keeps gvr served: first a server that serves it at the end,
// while another that serves it at the start is still up.
func orderHint(sim *Simulation, gvr string, first, last []string) string {
	for _, y := range last {
		for _, z := range first {
			if y != z {
				order := []string{y}
				for _, s := range sim.Steps[0].Servers {
					if s.Name != y {
						order = append(order, s.Name)
					}
				}
				return fmt.Sprintf("upgrade %s (it serves %s after its upgrade) while %s still serves it: --order %s", y, gvr, z, strings.Join(order, ","))
			}
		}
	}
	return "upgrade so that some reachable server serves it at every step (--order), or keep its clients off until the upgrade completes"
}

func unavoidableWindow(w *window, sim *Simulation, tr *TrafficReport) Finding {
	source := strings.Join(w.first, ", ")
	var why, hint string
	if len(w.last) == 0 {
		why = fmt.Sprintf("served by %s at the start, by no apiserver of the target version: gone after the upgrade", source)
		hint = "no order avoids this window, and the API is gone after it: move its clients to a version the target serves before the upgrade"
	} else {
		why = fmt.Sprintf("only %s serves it, before and after its upgrade", source)
		hint = fmt.Sprintf("no order avoids this window; it lasts while %s is down: restart it promptly and let its clients retry, serve the API on another apiserver too (the same --runtime-config on every apiserver), or turn it off if nothing uses it", source)
	}
	return Finding{Check: CheckUnavoidableWindow.ID, Name: CheckUnavoidableWindow.Name, Severity: Warning, Subject: w.gvr,
		Step:     strings.Join(w.steps, ", "),
		Message:  fmt.Sprintf("404 on %s at step %s: %s; clients: %s", strings.Join(w.answering, ", "), strings.Join(w.steps, ", "), why, clientsOf(tr, w.gvr)),
		Evidence: []string{"no reachable apiserver lists it at step " + strings.Join(w.steps, ", "), "simulated from " + sim.Start},
		Hint:     hint}
}

// clientsOf names the replayed clients of gvr, or says that none were given.
func clientsOf(tr *TrafficReport, gvr string) string {
	if tr == nil {
		return "not known (no --audit-log or --requests given)"
	}
	for _, g := range tr.GVRs {
		if g.GVR != gvr {
			continue
		}
		var names []string
		for _, a := range g.Agents() {
			names = append(names, fmt.Sprintf("%s (%d request(s))", a.UserAgent, a.Requests))
		}
		return listSome(names, 5)
	}
	return "none in the replayed traffic"
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
