package diagram

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/simulate"
)

// maxListed is how many GVRs a risk box names before it says how many more there are.
const maxListed = 4

// Timeline draws a simulation or a preflight as its steps, one after the other, each with
// the servers' versions, and beside every step a box per server and answer (404, 503) that
// some GVR still served somewhere meets there: a window shows as the same box on consecutive
// steps.
func Timeline(sim *simulate.Simulation, title string) *Graph {
	g := &Graph{Title: title}
	type riskKey struct {
		step    string
		server  string
		outcome mvp.Outcome
	}
	risks := map[riskKey][]string{}
	for _, r := range sim.AtRisk {
		k := riskKey{step: fmt.Sprint(r.StepN), server: r.Server, outcome: r.Outcome}
		if !slices.Contains(risks[k], r.GVR) { // a crash's two phases list a GVR twice
			risks[k] = append(risks[k], r.GVR)
		}
	}
	prev := ""
	boxesOf := map[string][]string{} // step → its risk boxes, shared by the step's phases
	for i, st := range sim.Steps {
		var servers []string
		for _, s := range st.Servers {
			state := s.Version
			if !s.Reachable {
				state += ", down"
			}
			servers = append(servers, vis(s.Name+" "+state))
		}
		label := fmt.Sprintf("step %d: %s", st.N, vis(st.Step))
		if st.Phase != "" {
			label += "\n(" + Wrap(st.Phase, 40) + ")"
		}
		label += "\n" + strings.Join(servers, "\n")
		stepKey := fmt.Sprint(st.N)
		node := g.Node(fmt.Sprintf("step%d", i), label, Server)
		if prev != "" {
			g.Edge(prev, node, "", Solid, "")
		}
		prev = node
		if drawn, ok := boxesOf[stepKey]; ok {
			// A later phase of the same step (a crash's): its risks are the step's, drawn once.
			for _, box := range drawn {
				g.Edge(node, box, "at risk", Dashed, g.Nodes[g.index[box]].Kind)
			}
			continue
		}
		var boxes []riskKey
		for k := range risks {
			if k.step == stepKey {
				boxes = append(boxes, k)
			}
		}
		boxesOf[stepKey] = nil
		sort.Slice(boxes, func(a, b int) bool {
			if boxes[a].server != boxes[b].server {
				return boxes[a].server < boxes[b].server
			}
			return boxes[a].outcome < boxes[b].outcome
		})
		for _, k := range boxes {
			gvrs := risks[k]
			listed := gvrs
			if len(listed) > maxListed {
				listed = append(append([]string(nil), gvrs[:maxListed]...), fmt.Sprintf("… and %d more", len(gvrs)-maxListed))
			}
			answer, rk := "404", NotFound
			if k.outcome == mvp.Unavailable {
				answer, rk = "503", Unavailable
			}
			box := g.Node(fmt.Sprintf("risk%d_%s_%s", i, k.server, answer),
				fmt.Sprintf("%s answers %s for %d GVR(s) served elsewhere\n%s", vis(k.server), answer, len(gvrs), strings.Join(visAll(listed), "\n")), rk)
			g.Edge(node, box, "at risk", Dashed, rk)
			boxesOf[stepKey] = append(boxesOf[stepKey], box)
		}
	}
	return g
}
