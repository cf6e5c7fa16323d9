package preflight

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// The 404/503 windows of the rehearsed upgrade, one finding per rule and GVR: MVP010 for a
// window an upgrade order or the peer proxy could close (the fix names how), MVP011 for one
// no order avoids — every apiserver that serves the GVR is down, and no order puts another
// one in its place. Their severity is decided by harm (harm.go), not by which of the
// two it is. Each finding keeps its per-server records (Finding.Windows).

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

// gvrWindows are one GVR's at-risk cells, split by rule.
type gvrWindows struct {
	gvr                    string
	first, last            []string
	fixable, unavoidableAt []simulate.Risk
}

// routingFindings turns the simulation's at-risk cells into findings: for each GVR, one MVP010
// for the windows an order or the peer proxy can close and one MVP011 for those no order
// avoids, each with the severity its harm decides.
func routingFindings(sim *simulate.Simulation, h harm) []Finding {
	firstSnap, lastSnap := sim.Steps[0].Snapshot(), sim.Steps[len(sim.Steps)-1].Snapshot()
	byGVR := map[string]*gvrWindows{}
	var order []*gvrWindows
	for _, r := range sim.AtRisk {
		w := byGVR[r.GVR]
		if w == nil {
			w = &gvrWindows{gvr: r.GVR}
			w.first, _ = servers(firstSnap, r.GVR)
			w.last, _ = servers(lastSnap, r.GVR)
			byGVR[r.GVR] = w
			order = append(order, w)
		}
		if r.Outcome == mvp.NotFound && !servedAtStep(sim, r) && unavoidable(w.first, w.last) {
			w.unavoidableAt = append(w.unavoidableAt, r)
		} else {
			w.fixable = append(w.fixable, r)
		}
	}
	var out []Finding
	for _, w := range order {
		if len(w.fixable) > 0 {
			out = append(out, fixableWindow(sim, w, h))
		}
		if len(w.unavoidableAt) > 0 {
			out = append(out, unavoidableWindow(sim, w, h))
		}
	}
	return out
}

// servedAtStep: some reachable server lists r's GVR at r's step (then r's server could reach
// it: a proxy or learning problem, not a window of the whole control plane).
func servedAtStep(sim *simulate.Simulation, r simulate.Risk) bool {
	for _, st := range sim.Steps {
		if st.N == r.StepN {
			if _, up := servers(st.Snapshot(), r.GVR); up {
				return true
			}
		}
	}
	return false
}

func fixableWindow(sim *simulate.Simulation, w *gvrWindows, h harm) Finding {
	sev, why := h.of(w.gvr)
	var hints, proxyless []string
	for _, r := range w.fixable {
		switch {
		case r.Outcome == mvp.Unavailable:
			hints = appendNew(hints, "a crashed peer still holds its identity lease: restart it, or delete its lease (kube-system/"+"apiserver-…) once it is gone for good")
		case servedAtStep(sim, r):
			proxyless = appendNew(proxyless, r.Server)
		default:
			hints = appendNew(hints, orderHint(sim, w.first, w.last))
		}
	}
	if len(proxyless) > 0 {
		list, does, it := strings.Join(proxyless, ", "), "does", "it has"
		if len(proxyless) > 1 {
			does, it = "do", "they have"
		}
		hints = append([]string{fmt.Sprintf("another apiserver serves it at those steps, but %s %s not route to it: turn the peer proxy on on %s (the gate and --peer-ca-file) and make sure %s learned the peers", list, does, list, it)}, hints...)
	}
	return Finding{Check: CheckServedEveryStep.ID, Name: CheckServedEveryStep.Name, Severity: sev, Subject: w.gvr, Step: riskSteps(w.fixable),
		Message:  fmt.Sprintf("%s; %s; %s", simulate.WindowsText(w.fixable), servedByText(w.fixable), why),
		Evidence: append(append(reasons(w.fixable), "simulated from "+sim.Start), h.evidence()...),
		Hint:     strings.Join(hints, "; "), Windows: w.fixable}
}

// orderHint names an order that keeps a GVR served: first a server that serves it at the end,
// while another that serves it at the start is still up.
func orderHint(sim *simulate.Simulation, first, last []string) string {
	for _, y := range last {
		for _, z := range first {
			if y != z {
				order := []string{y}
				for _, s := range sim.Steps[0].Servers {
					if s.Name != y {
						order = append(order, s.Name)
					}
				}
				return fmt.Sprintf("upgrade %s first (it serves it after its upgrade) while %s still serves it: --order %s", y, z, strings.Join(order, ","))
			}
		}
	}
	return "upgrade so that some reachable server serves it at every step (--order), or keep its clients off until the upgrade completes"
}

func unavoidableWindow(sim *simulate.Simulation, w *gvrWindows, h harm) Finding {
	sev, why := h.of(w.gvr)
	source := strings.Join(w.first, ", ")
	var what, hint string
	if len(w.last) == 0 {
		what = fmt.Sprintf("served by %s at the start, by no apiserver of the target version: gone after the upgrade", source)
		hint = "no order avoids this window, and the API is gone after it: move its clients to a version the target serves before the upgrade"
	} else {
		what = fmt.Sprintf("only %s serves it, before and after its upgrade", source)
		hint = "no order avoids this window; it lasts while the only apiserver that serves it is down: restart it promptly and let its clients retry, serve the API on another apiserver too (the same --runtime-config on every apiserver), or turn it off if nothing uses it"
	}
	return Finding{Check: CheckUnavoidableWindow.ID, Name: CheckUnavoidableWindow.Name, Severity: sev, Subject: w.gvr, Step: riskSteps(w.unavoidableAt),
		Message:  fmt.Sprintf("%s; %s; %s", simulate.WindowsText(w.unavoidableAt), what, why),
		Evidence: append([]string{"no reachable apiserver lists it at " + simulate.StepsText(stepNumbers(w.unavoidableAt)), "simulated from " + sim.Start}, h.evidence()...),
		Hint:     hint, Windows: w.unavoidableAt}
}

// servedByText says which servers, up at the time, serve the GVR while it fails: "served by
// a", or per steps when that changes: "served by a (steps 2–3); a, b (step 4)"; "no server
// up" where every server that serves it is down.
func servedByText(risks []simulate.Risk) string { return "served by " + simulate.ServedBySets(risks) }

func stepNumbers(risks []simulate.Risk) []int {
	ns := make([]int, len(risks))
	for i, r := range risks {
		ns[i] = r.StepN
	}
	return ns
}

// riskSteps names the steps of risks: "2 (upgrade a to 1.37), 3 (stop b)".
func riskSteps(risks []simulate.Risk) string {
	var steps []string
	for _, r := range risks {
		steps = appendNew(steps, fmt.Sprintf("%d (%s)", r.StepN, r.Step))
	}
	return strings.Join(steps, ", ")
}

// reasons are the distinct routing reasons of risks, the first few.
func reasons(risks []simulate.Risk) []string {
	var out []string
	for _, r := range risks {
		out = appendNew(out, r.Reason)
	}
	if len(out) > maxReasons {
		out = append(out[:maxReasons], fmt.Sprintf("… %d more reason(s): -o json lists every server's", len(out)-maxReasons))
	}
	return out
}

// maxReasons bounds the routing reasons a window finding quotes; its Windows keep them all.
const maxReasons = 3

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
