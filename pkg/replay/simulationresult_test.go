package replay

import (
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/report"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestSimulationReportResult: a simulation's result is what simulate.Run decided it rests on,
// from its start and the profiles it used.
func TestSimulationReportResult(t *testing.T) {
	start, err := simulate.ProfilesStart("a=1.35,b=1.35", "", "", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	start.Servers[1].Reachable = false
	start.Cluster.LB = &snapshot.LBSampling{Leases: 2, LeasesSeen: 1, LeasesRead: true}
	sim, err := simulate.Run(start, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := SimulationReport{Simulation: sim}.Result()
	if r.Class != report.Warnings {
		t.Fatalf("got %v %v, want warnings", r.Class, r.Reason)
	}
	for _, want := range []string{"assumption(s) (the ASSUMED lines)", "b could not be read when the snapshot was taken", start.Cluster.LB.Incomplete()} {
		if !strings.Contains(r.Reason.String(), want) {
			t.Errorf("reason %q lacks %q", r.Reason, want)
		}
	}
	if r := (SimulationReport{Simulation: &simulate.Simulation{}}).Result(); !r.OK() {
		t.Errorf("observed, all read: %v %v, want ok", r.Class, r.Reason)
	}
}
