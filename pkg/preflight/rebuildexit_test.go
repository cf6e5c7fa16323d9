package preflight

import (
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/mvpctl/mvpctl/test/fake/planes"
)

// MVP032 (docs/behaviour.md §11.2): blocking while a dead peer's endpoint key may still resolve
// (the next lease event takes the 1.34 server down), a warning for an upgrade's rebuilds
// otherwise, and nothing for servers without the defect (1.35+, or no filter).
func TestRebuildExitFindings(t *testing.T) {
	for _, tt := range []struct {
		name     string
		versions [3]string
		edit     func(s *snapshot.Snapshot)
		steps    int
		want     map[string]Severity // subject → severity
	}{
		{"1.34 plane, upgrade planned", [3]string{"1.34", "1.34", "1.36"}, nil, 3,
			map[string]Severity{"a": Warning, "b": Warning}},
		{"1.34 plane, no step", [3]string{"1.34", "1.34", "1.36"}, nil, 0, map[string]Severity{}},
		{"c crashed a moment ago", [3]string{"1.34", "1.34", "1.36"}, func(s *snapshot.Snapshot) {
			simulate.Crash(s.Find("c"), "killed", true)
		}, 0, map[string]Severity{"a": Blocking, "b": Blocking}},
		{"c crashed long ago", [3]string{"1.34", "1.34", "1.36"}, func(s *snapshot.Snapshot) {
			simulate.Crash(s.Find("c"), "killed", false)
		}, 2, map[string]Severity{"a": Warning, "b": Warning}},
		{"a 1.34 without --peer-ca-file has no peer-discovery cache", [3]string{"1.34", "1.36", "1.36"}, func(s *snapshot.Snapshot) {
			s.Find("a").PeerProxy.FilterInstalled = snapshot.Ptr(false)
			simulate.Crash(s.Find("c"), "killed", true)
		}, 2, map[string]Severity{}},
		{"1.35+ fixed it", [3]string{"1.35", "1.36", "1.37"}, func(s *snapshot.Snapshot) {
			simulate.Crash(s.Find("c"), "killed", true)
		}, 2, map[string]Severity{}},
	} {
		s, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: tt.versions[0], Proxy: "configured"},
			{Name: "b", Version: tt.versions[1], Proxy: "configured"}, {Name: "c", Version: tt.versions[2], Proxy: "configured"}}, planes.At)
		if err != nil {
			t.Fatal(err)
		}
		if tt.edit != nil {
			tt.edit(s)
		}
		got := map[string]Severity{}
		for _, f := range rebuildExitFindings(s, tt.steps, startEvidence(s)) {
			got[f.Subject] = f.Severity
			if f.Check != CheckRebuildExit.ID || f.Hint == "" || len(f.Evidence) == 0 || !strings.Contains(f.Message, "1.33–1.34") {
				t.Errorf("%s: finding %+v", tt.name, f)
			}
		}
		if len(got) != len(tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
			continue
		}
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
			}
		}
	}
}

// A simulated crash's first phase (the endpoint key alive) says which 1.33/1.34 servers a lease
// event would take down; the steady phase after it does not.
func TestCrashWindowPhaseNamesRebuildExit(t *testing.T) {
	s, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: "1.34", Proxy: "configured"}, {Name: "b", Version: "1.36", Proxy: "configured"}}, planes.At)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := simulate.Run(s, []simulate.Step{{Action: simulate.ActionCrash, Server: "b"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sim.Steps) != 3 {
		t.Fatalf("%d results, want the start, the window and the steady state", len(sim.Steps))
	}
	window, steady := strings.Join(sim.Steps[1].Notes, "\n"), strings.Join(sim.Steps[2].Notes, "\n")
	if !strings.Contains(window, "a exits if an apiserver starts or stops in this phase") || strings.Contains(steady, "exits") {
		t.Errorf("window notes %q, steady notes %q", window, steady)
	}
}
