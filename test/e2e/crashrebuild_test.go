package e2e

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// TestCrashThenRebuild: after a SIGKILL the dead server stays in its peers' peer-discovery
// caches — 503 endpoint-resolution once its endpoint key has expired — until their next
// rebuild, which any identity lease event causes (a lease created, deleted or with a new
// holder); the rebuild cannot fetch the dead server's discovery and drops it, so a GVR only it
// served becomes a 404 (docs/behaviour.md §11.4). Three v1.36.3 servers, kas-a the only one
// serving batch/v1. kas-a is SIGKILLed; 30 s later kas-b answers endpoint-resolution, as
// predicted; `mvpctl simulate run` from the snapshot taken then predicts that a graceful restart
// of kas-c (stop, start; or the restart step) turns it into a 404; kas-c is restarted for real, and kas-b's answer
// and a fresh snapshot's prediction are both that 404.
func TestCrashThenRebuild(t *testing.T) {
	cp, killed := killTheBatchServer(t, "kas-c")
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	b := cp.Server("kas-b")
	dir := t.TempDir()
	time.Sleep(time.Until(killed.Add(30 * time.Second))) // past the endpoint key's 25 s bound

	predictedFor := func(file string) string {
		snap, _ := mvpctlSnapshot(t, file, []int{2}, "--kubeconfig", b.Kubeconfig)
		e, err := mvpctlExplain(t, snap, batchJobs)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range e.Servers {
			if d.Server == "kas-b" {
				return d.key()
			}
		}
		t.Fatalf("no prediction for kas-b in %s", file)
		return ""
	}
	afterKill := dir + "/after-kill.json"
	if p, o := predictedFor(afterKill), observedKey(observeRoute(ctx, b, batchJobs).obs); p != "unavailable/endpoint-resolution" || o != p {
		t.Fatalf("30 s after the kill: predicted %s, observed %s; want endpoint-resolution for both", p, o)
	}

	// The rehearsal, from the snapshot taken after the kill: a restart as a stop and a start,
	// and as the one restart step (the same version, a new holder on 1.35+).
	simulated := map[string]string{}
	for _, steps := range [][]string{{"--step", "stop:kas-c", "--step", "start:kas-c"}, {"--step", "restart:kas-c"}} {
		r := runMvpctl(t, append(append([]string{"simulate", "run", "--snapshot", afterKill}, steps...), "-o", "json")...)
		var sim simulationDoc
		if err := json.Unmarshal([]byte(r.Stdout), &sim); err != nil {
			t.Fatalf("%s\n%v", r, err)
		}
		for _, st := range sim.Steps {
			for _, row := range st.Routes.Rows {
				for _, c := range row.Cells {
					if row.Name == "batch/v1/jobs" && c.Server == "kas-b" {
						simulated[st.Step] = c.Outcome
					}
				}
			}
		}
	}
	if simulated["stop kas-c"] != "not-found" || simulated["start kas-c"] != "not-found" || simulated["restart kas-c"] != "not-found" {
		t.Fatalf("simulated kas-b for batch/v1/jobs: %v, want not-found after every step", simulated)
	}

	// For real: a graceful restart of kas-c (its lease is deleted, then written with a new holder).
	restarted := time.Now()
	if err := cp.Restart(ctx, "kas-c"); err != nil {
		t.Fatal(err)
	}
	var observed string
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		if observed = observedKey(observeRoute(ctx, b, batchJobs).obs); observed == "not-found" || time.Now().After(deadline) {
			break
		}
	}
	predicted := predictedFor(dir + "/after-restart.json")
	t.Logf("kas-b for jobs: endpoint-resolution 30 s after kas-a's SIGKILL; after kas-c's restart (%s): observed %s, predicted %s; simulated %v",
		time.Since(restarted).Round(100*time.Millisecond), observed, predicted, simulated)
	if observed != "not-found" || predicted != observed {
		t.Errorf("after kas-c's restart: observed %s, predicted %s; want not-found for both", observed, predicted)
	}
}
