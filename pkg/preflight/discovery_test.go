package preflight

import (
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// loadCaptured reads a snapshot recorded on real kube-apiservers by test/e2e TestDiscovery
// (pkg/peerdiscovery/testdata/README.md).
func loadCaptured(t *testing.T, name string) *snapshot.Snapshot {
	t.Helper()
	s, err := snapshot.LoadFile("../peerdiscovery/testdata/v1.36.3-v1.37.1/" + name + ".snapshot.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func hasCheck(cs []Check, id string) bool {
	for _, c := range cs {
		if c.ID == id {
			return true
		}
	}
	return false
}

func TestPreflightDiscovery(t *testing.T) {
	t.Run("stale peer-aggregated document (real v1.36.3 after its last peer stopped)", func(t *testing.T) {
		rep, err := Run(t.Context(), Options{Start: loadCaptured(t, "stale")})
		if err != nil {
			t.Fatal(err)
		}
		var found []Finding
		for _, f := range rep.Findings {
			if f.Check == CheckDiscovery.ID {
				found = append(found, f)
			}
		}
		if len(found) != 1 {
			t.Fatalf("MVP030 findings %+v, want one", found)
		}
		f := found[0]
		if f.Severity != Blocking || f.Subject != "kas-b" || !strings.Contains(f.Message, "advertises 6 entries no reachable apiserver serves") ||
			!strings.Contains(f.Message, "batch") || !strings.Contains(f.Hint, "CRD") || len(f.Evidence) != 2 || !strings.Contains(f.Evidence[1], "ETag served") {
			t.Errorf("finding %+v", f)
		}
		if got := rep.Failing(FailOnWarning); got != Blocking {
			t.Errorf("Failing(warning) = %q, want blocking", got)
		}
	})
	t.Run("steady state: checked, nothing found", func(t *testing.T) {
		rep, err := Run(t.Context(), Options{Start: loadCaptured(t, "steady")})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Findings {
			if f.Check == CheckDiscovery.ID {
				t.Errorf("finding %+v", f)
			}
		}
		if !hasCheck(rep.Checks, CheckDiscovery.ID) {
			t.Error("MVP030 ran but is not listed among the checks")
		}
	})
	t.Run("profiles record no documents: not run, not listed", func(t *testing.T) {
		start, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: "1.36"}, {Name: "b", Version: "1.37"}}, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Run(t.Context(), Options{Start: start})
		if err != nil {
			t.Fatal(err)
		}
		if hasCheck(rep.Checks, CheckDiscovery.ID) {
			t.Error("MVP030 listed although it could not run")
		}
		if !hasCheck(Checks, CheckDiscovery.ID) {
			t.Error("MVP030 missing from Checks (the help lists them)")
		}
	})
}
