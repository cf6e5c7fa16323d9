package replay

import "github.com/mvpctl/mvpctl/pkg/simulate"

// SimulationReport is a simulation and, when traffic was replayed through it, what happened
// to that traffic (`mvpctl simulate -o json|yaml`). It keeps the Simulation's apiVersion and
// kind: the traffic is one more field of the same document.
type SimulationReport struct {
	*simulate.Simulation
	Traffic *Report `json:"traffic,omitempty"`
}
