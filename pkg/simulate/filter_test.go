package simulate

import (
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestNarrowSimulation: the steps' tables, AT RISK and REMOVED keep the selected GVRs only.
func TestNarrowSimulation(t *testing.T) {
	start, err := FromProfiles([]ServerVersion{{Name: "a", Version: "1.36"}, {Name: "b", Version: "1.36"}}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	steps, err := UpgradePlan(start, "1.37", nil)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := Run(start, steps)
	if err != nil {
		t.Fatal(err)
	}
	if len(sim.AtRisk) == 0 {
		t.Fatal("the fixture upgrade has no AT RISK row to filter")
	}
	f := snapshot.GVRFilter{Groups: []string{"new.k8s.io"}}
	sim.Narrow(f, start.Kinds())
	if sim.Filter != "group new.k8s.io" || len(sim.AtRisk) == 0 {
		t.Fatalf("filter %q, %d AT RISK rows", sim.Filter, len(sim.AtRisk))
	}
	for _, r := range sim.AtRisk {
		if g, _ := snapshot.ParseGVR(r.GVR); g.Group != "new.k8s.io" {
			t.Errorf("AT RISK keeps %s", r.GVR)
		}
	}
	for _, s := range sim.Steps {
		for _, r := range s.Table.Rows {
			if r.GVR.Group != "new.k8s.io" {
				t.Errorf("step %d keeps %s", s.N, r.Name)
			}
		}
	}
}
