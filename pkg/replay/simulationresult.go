package replay

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/report"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Result is a simulation's result, from start, the snapshot it began with: with warnings when
// it rests on a provisional profile or on assumptions, or on a snapshot whose identity leases
// could not be listed, in which some apiserver could not be read, or whose server classes are
// estimated through a load balancer.
// The at-risk rows are part of the report, not a verdict (preflight is the gate).
func (r SimulationReport) Result(start *snapshot.Snapshot) report.Result {
	why := RestsOn{Provisional: r.Simulation.Provisional, Assumptions: len(r.Simulation.Assumptions), Leases: start.LeasesNotListed()}
	if names := start.Unreachable(); len(names) > 0 {
		why.Unread = &snapshot.UnreadWhenTaken{Names: names}
	}
	if lb := start.Cluster.LB; lb != nil && !lb.Complete() {
		why.LB = &snapshot.LBEstimated{LB: lb}
	}
	if len(why.Provisional) == 0 && why.Assumptions == 0 && why.Unread == nil && why.LB == nil && why.Leases == nil {
		return report.Done()
	}
	return report.Of(report.Warnings, why)
}

// RestsOn is what a simulation rests on besides observation: provisional profiles, a number
// of assumptions (the ASSUMED lines), servers not read, an estimated sampling.
type RestsOn struct {
	Provisional []profile.Provisional
	Assumptions int
	Unread      *snapshot.UnreadWhenTaken
	LB          *snapshot.LBEstimated
	// Leases: the identity leases could not be listed (other apiservers are not known).
	Leases *snapshot.LeasesNotListed
}

func (r RestsOn) String() string {
	var why []string
	if len(r.Provisional) > 0 {
		names := make([]string, len(r.Provisional))
		for i, p := range r.Provisional {
			names[i] = p.Version
		}
		why = append(why, fmt.Sprintf("it rests on the provisional profile %s (the PROVISIONAL lines)", strings.Join(names, ", ")))
	}
	if r.Assumptions > 0 {
		why = append(why, fmt.Sprintf("it rests on %d assumption(s) (the ASSUMED lines)", r.Assumptions))
	}
	if r.Leases != nil {
		why = append(why, r.Leases.String())
	}
	if r.Unread != nil {
		why = append(why, r.Unread.String())
	}
	if r.LB != nil {
		why = append(why, r.LB.String())
	}
	return strings.Join(why, "; ")
}
