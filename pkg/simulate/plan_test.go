package simulate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// NewPlan resolves each way of giving a start and steps, and refuses what does not go
// together; its error texts are the command's.
func TestNewPlan(t *testing.T) {
	dir := t.TempDir()
	scenario := filepath.Join(dir, "scenario.yaml")
	if err := os.WriteFile(scenario, []byte(`apiVersion: mvpctl.io/v1alpha1
kind: Scenario
from:
  servers:
  - {name: a, version: "1.36"}
  - {name: b, version: "1.37"}
steps:
- {action: crash, server: b}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	fromSnapshot := filepath.Join(dir, "from-snapshot.yaml")
	if err := os.WriteFile(fromSnapshot, []byte("apiVersion: mvpctl.io/v1alpha1\nkind: Scenario\nfrom:\n  snapshot: cluster.yaml\nsteps:\n- {action: crash, server: a}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	loaded := 0
	load := func(context.Context) (*snapshot.Snapshot, error) {
		loaded++
		s, err := FromProfiles([]ServerVersion{{Name: "x", Version: "1.36"}, {Name: "y", Version: "1.36"}}, at)
		s.Source = "context prod"
		return s, err
	}
	tests := []struct {
		name    string
		o       PlanOptions
		servers string // the start's servers, NAME=VERSION,...
		steps   string // the steps, "; "-separated
		source  string // a prefix of the start's Source
		err     string
	}{
		{name: "servers and --to", o: PlanOptions{Servers: "a=1.36,b=1.36", To: "1.37", Proxy: "configured"},
			servers: "a=v1.36.3,b=v1.36.3", steps: "stop a; upgrade a to 1.37; stop b; upgrade b to 1.37"},
		{name: "--order", o: PlanOptions{Servers: "a=1.36,b=1.36", To: "1.37", Order: []string{"b", "a"}},
			servers: "a=v1.36.3,b=v1.36.3", steps: "stop b; upgrade b to 1.37; stop a; upgrade a to 1.37"},
		{name: "--step", o: PlanOptions{Servers: "a=1.36,b=1.36", Steps: []string{"crash:a", "start:a"}},
			servers: "a=v1.36.3,b=v1.36.3", steps: "crash a; start a"},
		{name: "a scenario", o: PlanOptions{Scenario: scenario}, servers: "a=v1.36.3,b=v1.37.1", steps: "crash b"},
		{name: "a snapshot file", o: PlanOptions{Load: load, SnapshotFile: "/tmp/cluster.yaml", To: "1.37"},
			servers: "x=v1.36.3,y=v1.36.3", steps: "stop x; upgrade x to 1.37; stop y; upgrade y to 1.37", source: "snapshot cluster.yaml (taken 2026-11-01T12:00:00Z, of context prod)"},
		{name: "the live cluster", o: PlanOptions{Load: load}, servers: "x=v1.36.3,y=v1.36.3", source: "context prod"},
		{name: "skipping a minor", o: PlanOptions{Servers: "a=1.35", To: "1.37"}, err: "skew"},
		{name: "skipping a minor allowed", o: PlanOptions{Servers: "a=1.35", To: "1.37", AllowSkew: true},
			servers: "a=v1.35.4", steps: "stop a; upgrade a to 1.37"},
		{name: "--proxy on a snapshot", o: PlanOptions{Load: load, Proxy: "configured"}, err: "--proxy sets up servers started from profiles (--servers"},
		{name: "--proxy on a scenario's snapshot", o: PlanOptions{Scenario: fromSnapshot, Proxy: "off"}, err: "starts from a snapshot, which says how each server is set up"},
		{name: "a scenario not there", o: PlanOptions{Scenario: filepath.Join(dir, "missing.yaml")}, err: "missing.yaml"},
		{name: "--runtime-config on a snapshot", o: PlanOptions{Load: load, RuntimeConfig: "a/v1=true"}, err: "--runtime-config goes with --servers"},
		{name: "a bad step", o: PlanOptions{Servers: "a=1.36", Steps: []string{"jump:a"}}, err: "jump"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := NewPlan(t.Context(), tc.o)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var servers, steps []string
			for _, s := range pl.Start.Servers {
				servers = append(servers, s.Name+"="+s.Version)
			}
			for _, s := range pl.Steps {
				steps = append(steps, s.String())
			}
			if got := strings.Join(servers, ","); got != tc.servers {
				t.Errorf("servers = %s, want %s", got, tc.servers)
			}
			if got := strings.Join(steps, "; "); got != tc.steps {
				t.Errorf("steps = %s, want %s", got, tc.steps)
			}
			if !strings.HasPrefix(pl.Start.Source, tc.source) {
				t.Errorf("source = %q, want %q", pl.Start.Source, tc.source)
			}
		})
	}
	if loaded != 2 {
		t.Errorf("Load called %d times, want 2 (the snapshot and live cases; never before a refusal)", loaded)
	}
}
