package replay

import "github.com/mvpctl/mvpctl/pkg/report"

// Result is a simulation's result: with warnings when it rests on a provisional profile or on
// assumptions, or on a start whose identity leases could not be listed, in which some apiserver
// could not be read, or whose server classes are estimated through a load balancer
// (basis.RestsOn.SimulationResult, on the value simulate.Run decided).
// The at-risk rows are part of the report, not a verdict (preflight is the gate).
func (r SimulationReport) Result() report.Result {
	return r.Simulation.RestsOn.SimulationResult()
}
