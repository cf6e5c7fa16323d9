package replay

import (
	"testing"

	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/report"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func TestSimulationReportResult(t *testing.T) {
	start := snapshot.New()
	start.Servers = []snapshot.Server{{Name: "a", Reachable: true}, {Name: "b"}}
	start.Cluster.LB = &snapshot.LBSampling{Leases: 2, LeasesSeen: 1, LeasesRead: true}
	clean := snapshot.New()
	clean.Servers = []snapshot.Server{{Name: "a", Reachable: true}}
	rep := SimulationReport{Simulation: &simulate.Simulation{Provisional: []profile.Provisional{{Version: "v1.39.0"}}, Assumptions: []string{"x", "y"}}}
	r := rep.Result(start)
	want := "it rests on the provisional profile v1.39.0 (the PROVISIONAL lines); it rests on 2 assumption(s) (the ASSUMED lines); b could not be read when the snapshot was taken; " + start.Cluster.LB.Incomplete()
	if r.Class != report.Warnings || r.Reason.String() != want {
		t.Errorf("got %v %q, want warnings %q", r.Class, r.Reason, want)
	}
	if r := (SimulationReport{Simulation: &simulate.Simulation{}}).Result(clean); !r.OK() {
		t.Errorf("observed, all read: %v %v, want ok", r.Class, r.Reason)
	}
}
