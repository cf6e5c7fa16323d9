package diagram

import (
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/simulate"
)

// TestTimeline: one node per step (phase), in order; one box per step, server and answer,
// naming each GVR once, with an edge from every phase of the step.
func TestTimeline(t *testing.T) {
	sim := &simulate.Simulation{
		Steps: []simulate.StepResult{
			{N: 0, Step: "start", Servers: []route.ServerSummary{{Name: "a", Version: "v1.36.3", Reachable: true}}},
			{N: 1, Step: "crash b", Phase: "first"},
			{N: 1, Step: "crash b", Phase: "second"},
			{N: 2, Step: "start b"},
		},
		AtRisk: []simulate.Risk{
			{StepN: 1, Server: "a", GVR: "x.io/v1/ys", Outcome: mvp.Unavailable},
			{StepN: 1, Server: "a", GVR: "x.io/v1/ys", Outcome: mvp.Unavailable}, // the second phase
			{StepN: 1, Server: "a", GVR: "x.io/v1/zs", Outcome: mvp.Unavailable},
		},
	}
	g := Timeline(sim, "t")
	var steps, boxes []string
	for _, n := range g.Nodes {
		if strings.HasPrefix(n.ID, "step") {
			steps = append(steps, n.ID)
		} else {
			boxes = append(boxes, n.Label)
		}
	}
	if len(steps) != 4 || len(boxes) != 1 || !strings.HasPrefix(boxes[0], "a answers 503 for 2 GVR(s)") {
		t.Fatalf("steps %v boxes %q", steps, boxes)
	}
	atRisk := 0
	for _, e := range g.Edges {
		if e.Label == "at risk" {
			atRisk++
		}
	}
	if atRisk != 2 {
		t.Errorf("%d at-risk edges, want one from each phase of step 1", atRisk)
	}
}
