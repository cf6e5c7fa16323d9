package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// simulationDoc is the part of `mvpctl simulate -o json` compared here.
type simulationDoc struct {
	Kind          string   `json:"kind"`
	Profiles      []string `json:"profiles"`
	Stated        []string `json:"stated"`
	Assumptions   []string `json:"assumptions"`
	StatedConfigs []struct {
		Server        string   `json:"server"`
		Source        string   `json:"source"`
		RuntimeConfig string   `json:"runtimeConfig"`
		Disagreements []string `json:"disagreements"`
	} `json:"statedConfigs"`
	RuntimeConfigs []struct {
		Server        string   `json:"server"`
		RuntimeConfig string   `json:"runtimeConfig"`
		Misfits       []string `json:"misfits"`
		Unknown       string   `json:"unknown"`
	} `json:"runtimeConfigs"`
	Steps []struct {
		N      int      `json:"n"`
		Step   string   `json:"step"`
		Notes  []string `json:"notes"`
		Routes struct {
			Rows []struct {
				Name    string `json:"name"`
				Request string `json:"request"`
				Cells   []struct {
					Server      string `json:"server"`
					Outcome     string `json:"outcome"`
					Unavailable string `json:"unavailable"`
					Text        string `json:"text"`
				} `json:"cells"`
			} `json:"rows"`
		} `json:"routes"`
	} `json:"steps"`
}

// TestSimulatedUpgradeStep rehearses one step of a rolling upgrade with `mvpctl simulate`
// from a live snapshot of two v1.36.3 apiservers (upgrade kas-b to 1.37, from the embedded
// 1.37 profile), then carries the step out for real (kas-b restarted on the v1.37.1 binary)
// and checks that every simulated routing-table cell is what the servers do.
func TestSimulatedUpgradeStep(t *testing.T) {
	harness.SkipIfUnsupported(t)
	if testing.Short() {
		t.Skip("-short: skipping the simulated-then-real upgrade")
	}
	cp := harness.Start(t,
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_36},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_36},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	simulatedThenReal(t, ctx, cp, "kas-b", "")
}

// TestUpgradeKeepsRuntimeConfig: a real upgrade keeps each server's flags, and so does
// mvpctl's rehearsal of it. Three v1.36 servers: kas-a switches on a group/version the v1.37
// default lacks and switches off one it has, kas-b runs the defaults, kas-c api/all=true.
// kas-a is upgraded (simulated from a live snapshot, then for real with the same flags), then
// kas-c; after each, every simulated cell must be what the three servers do.
func TestUpgradeKeepsRuntimeConfig(t *testing.T) {
	harness.SkipIfUnsupported(t)
	if testing.Short() {
		t.Skip("-short: skipping the simulated-then-real upgrades")
	}
	const kasA = "resource.k8s.io/v1beta2=true,batch/v1=false"
	cp := harness.Start(t,
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_36, ExtraFlags: []string{"--runtime-config=" + kasA}},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_36},
		harness.ServerSpec{Name: "kas-c", Version: harness.V1_36, ExtraFlags: []string{"--runtime-config=api/all=true"}},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	sim := simulatedThenReal(t, ctx, cp, "kas-a", "")
	inferred := map[string]string{}
	for _, c := range sim.RuntimeConfigs {
		inferred[c.Server] = c.RuntimeConfig
		if len(c.Misfits) > 0 {
			t.Errorf("%s: what it serves fits no runtime-config: %v", c.Server, c.Misfits)
		}
	}
	t.Logf("runtime-config as inferred from the live snapshot: %v", inferred)
	for server, want := range map[string]string{"kas-a": kasA, "kas-b": "", "kas-c": "api/all=true"} {
		if got := inferred[server]; got != want {
			t.Errorf("%s: runtime-config inferred %q, started with %q", server, got, want)
		}
	}
	simulatedThenReal(t, ctx, cp, "kas-c", "")
}

// checkSimulatedCells observes every cell of the simulation's step n on the server the cell
// names (serverOf maps a snapshot's server name to the harness's) and fails on each that the
// servers do not answer as simulated; the table is logged.
func checkSimulatedCells(t *testing.T, ctx context.Context, sim simulationDoc, n int, serverOf func(string) *harness.Server) {
	t.Helper()
	step := sim.Steps[n]
	var table, bad []string
	for _, row := range step.Routes.Rows {
		method, path, _ := strings.Cut(row.Request, " ")
		for _, cell := range row.Cells {
			o := observeRoute(ctx, serverOf(cell.Server), mvpRequest{Method: method, Path: path + "?limit=1"})
			want := cell.Outcome
			if cell.Unavailable != "" {
				want += "/" + cell.Unavailable
			}
			got := observedKey(o.obs)
			line := fmt.Sprintf("%-60s %-6s simulated %-12s observed %-12s %s", row.Name, cell.Server, cell.Text, got, httpCodes(o))
			table = append(table, line)
			if got != want {
				bad = append(bad, line+"  "+bodyExcerpt(o.normal))
			}
		}
	}
	t.Logf("simulated vs real after %q:\n%s", step.Step, strings.Join(table, "\n"))
	if len(bad) > 0 {
		t.Errorf("the simulation disagrees with the real upgrade on %d cell(s):\n%s", len(bad), strings.Join(bad, "\n"))
	}
}

// simulatedThenReal snapshots the live plane, simulates upgrading server to 1.37 with `mvpctl
// simulate run --step`, upgrades it for real (same flags, v1.37.1 binary), and checks every
// simulated cell, and the whole routing table, against the servers.
func simulatedThenReal(t *testing.T, ctx context.Context, cp *harness.ControlPlane, server, stepSuffix string, snapshotArgs ...string) simulationDoc {
	t.Helper()
	t0 := time.Now()
	snapPath := t.TempDir() + "/start.json"
	mvpctlSnapshot(t, snapPath, []int{0}, append([]string{"--kubeconfig", cp.Kubeconfig}, snapshotArgs...)...)

	r := runMvpctl(t, "simulate", "run", "--snapshot", snapPath, "--step", "upgrade:"+server+"="+harness.V1_37+stepSuffix, "-o", "json")
	if r.Exit != 0 {
		t.Fatalf("%s", r)
	}
	var sim simulationDoc
	if err := json.Unmarshal(r.Stdout, &sim); err != nil || sim.Kind != "Simulation" || len(sim.Steps) != 2 {
		t.Fatalf("simulate output (%v): %s", err, r.Stdout)
	}
	step := sim.Steps[1]
	if len(step.Routes.Rows) == 0 {
		t.Fatalf("the simulated upgrade changes no routing: nothing to check (profiles %v)", sim.Profiles)
	}
	t.Logf("simulated in %s: step %q from profiles %v, %d GVRs differ; notes %v", time.Since(t0).Round(time.Millisecond), step.Step, sim.Profiles, len(step.Routes.Rows), step.Notes)

	t1 := time.Now()
	if err := cp.Upgrade(ctx, server, harness.V1_37); err != nil {
		t.Fatal(err)
	}
	if err := cp.WaitPeers(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s upgraded for real in %s", server, time.Since(t1).Round(time.Millisecond))

	checkSimulatedCells(t, ctx, sim, 1, cp.Server)

	// Nothing else differs either: the routing table of a fresh snapshot of the upgraded
	// plane has exactly the simulated rows and cells.
	after := t.TempDir() + "/after.json"
	mvpctlSnapshot(t, after, []int{0}, "--kubeconfig", cp.Kubeconfig)
	rt := runMvpctl(t, "routes", "--snapshot", after, "-o", "json")
	var real struct {
		Rows []struct {
			Name  string `json:"name"`
			Cells []struct {
				Server, Text string
			} `json:"cells"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(rt.Stdout, &real); rt.Exit != 0 || err != nil {
		t.Fatalf("%s (%v)", rt, err)
	}
	cells := func(name string, cs []struct{ Server, Text string }) string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Server+"="+c.Text)
		}
		return name + ": " + strings.Join(out, " ")
	}
	var simulated, observed []string
	for _, row := range step.Routes.Rows {
		var cs []struct{ Server, Text string }
		for _, c := range row.Cells {
			cs = append(cs, struct{ Server, Text string }{c.Server, c.Text})
		}
		simulated = append(simulated, cells(row.Name, cs))
	}
	for _, row := range real.Rows {
		observed = append(observed, cells(row.Name, row.Cells))
	}
	if strings.Join(simulated, "\n") != strings.Join(observed, "\n") {
		t.Errorf("routing table after the real upgrade differs from the simulated one:\nsimulated:\n%s\nreal:\n%s", strings.Join(simulated, "\n"), strings.Join(observed, "\n"))
	}
	return sim
}
