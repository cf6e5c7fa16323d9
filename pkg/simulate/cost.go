package simulate

import (
	"fmt"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// MaxRoutingCells bounds a simulation's work before it starts: servers × evaluated steps ×
// GVRs. Every evaluated step (the start, each step, a crash's second phase) copies the control
// plane and keeps its routing for the report, at about 1 KB a cell (docs/faults.md has the
// figures); a rolling upgrade of 5 servers on a cluster of 700 GVRs is 5 × 11 × 700 = 38,500.
const MaxRoutingCells = 250_000

// Cost is what a simulation would evaluate: the product MaxRoutingCells bounds.
type Cost struct {
	Servers, Evaluations, GVRs int
}

// Cells is the cost's product.
func (c Cost) Cells() int { return c.Servers * c.Evaluations * c.GVRs }

// EstimateCost counts, before any work, the servers, the evaluated steps (one more for each
// crash, whose aftermath has two phases) and the distinct GVRs of the start and of the
// profiles the upgrades go to.
func EstimateCost(start *snapshot.Snapshot, steps []Step) Cost {
	return estimateCost(start, planSteps(steps))
}

// estimateCost is EstimateCost of planned steps.
func estimateCost(start *snapshot.Snapshot, steps []plannedStep) Cost {
	gvrs := map[snapshot.GVR]bool{}
	for i := range start.Servers {
		for _, r := range start.Servers[i].Resources {
			gvrs[r.GVR()] = true
		}
	}
	evaluations, targets := 1+len(steps), map[string]bool{}
	for _, st := range steps {
		switch p, upgrade := targetProfile(st); {
		case st.Action == ActionCrash:
			evaluations++
		case upgrade && !targets[st.To]:
			targets[st.To] = true
			for _, r := range p.Resources {
				gvrs[r.GVR()] = true
			}
		}
	}
	return Cost{Servers: len(start.Servers), Evaluations: evaluations, GVRs: len(gvrs)}
}

// checkCost refuses a simulation whose cost is past MaxRoutingCells, naming the product.
func checkCost(c Cost) error {
	if c.Cells() <= MaxRoutingCells {
		return nil
	}
	return fmt.Errorf("%d servers × %d evaluated steps × %d GVRs = %d routing cells; at most %d are simulated (each step's routing is kept for the report): fewer servers or steps",
		c.Servers, c.Evaluations, c.GVRs, c.Cells(), MaxRoutingCells)
}
