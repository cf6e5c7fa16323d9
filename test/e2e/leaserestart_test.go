package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	toolswatch "k8s.io/client-go/tools/watch"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestRestartRecreatesIdentityLease: what a restarted apiserver does to its identity lease,
// seen by a Kubernetes watch of the leases through its peer (docs/behaviour.md §11.4). A
// v1.35 server's new process deletes the lease it finds at startup and creates it again with
// its own holder: the watch gets DELETED, then ADDED. A v1.34 server's new process renews the
// lease it finds and keeps its holder (the killed process's): one MODIFIED, a renewal like
// any other, never DELETED. mvpctl watch reports what it sees of this (docs/watch.md): on
// 1.35+ lease-gone and lease-added, or lease-new-holder when both changes arrive before it
// looks; on 1.34 no lease event.
func TestRestartRecreatesIdentityLease(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the SIGKILLs and restarts")
	}
	cp := startWith134(t, "kas-a",
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_34},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_35},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, c := range []struct {
		restarted, through string
		want               string // the events of the restarted server's lease, in order
	}{
		{restarted: "kas-b", through: "kas-a", want: "DELETED, ADDED (new holder)"},
		{restarted: "kas-a", through: "kas-b", want: "MODIFIED (same holder)"},
	} {
		got, err := leaseEventsOfRestart(ctx, cp, c.restarted, c.through)
		if err != nil {
			t.Fatalf("%s: %v", c.restarted, err)
		}
		t.Logf("%s (%s) restarted, its lease's events through %s: %s", c.restarted, cp.Server(c.restarted).Version, c.through, got)
		if got != c.want {
			t.Errorf("%s (%s) restarted: lease events %q, want %q", c.restarted, cp.Server(c.restarted).Version, got, c.want)
		}
	}
}

// leaseEventsOfRestart SIGKILLs restarted, starts it again, and returns the events of its
// identity lease that a watch through the server through saw, up to the first write by the
// new process (renewals by the killed one left out): each event's type, and for a write
// whether the holder is still the killed process's.
func leaseEventsOfRestart(ctx context.Context, cp *harness.ControlPlane, restarted, through string) (string, error) {
	cs, err := kubernetes.NewForConfig(cp.Server(through).RestConfig())
	if err != nil {
		return "", err
	}
	leases := cs.CoordinationV1().Leases(harness.IdentityLeaseNamespace)
	list, err := leases.List(ctx, metav1.ListOptions{LabelSelector: harness.IdentityLeaseLabel})
	if err != nil {
		return "", err
	}
	var before coordinationv1.Lease
	for _, l := range list.Items {
		if l.Labels["kubernetes.io/hostname"] == restarted {
			before = l
		}
	}
	if before.Name == "" {
		return "", fmt.Errorf("no identity lease with hostname %s among %d", restarted, len(list.Items))
	}
	// A watch request can end (the server through restarted a moment ago): the RetryWatcher
	// goes on from the last resourceVersion, so no event is lost.
	w, err := toolswatch.NewRetryWatcherWithContext(ctx, list.ResourceVersion, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.LabelSelector = harness.IdentityLeaseLabel
			return leases.Watch(ctx, o)
		}})
	if err != nil {
		return "", err
	}
	defer w.Stop()
	killed := time.Now()
	if err := cp.Kill(restarted); err != nil {
		return "", err
	}
	if err := cp.Restart(ctx, restarted); err != nil {
		return "", err
	}
	var events []string
	deadline := time.After(time.Minute)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return "", fmt.Errorf("the watch through %s ended; events so far: %q", through, events)
			}
			l, isLease := ev.Object.(*coordinationv1.Lease)
			if ev.Type == watch.Error || !isLease {
				return "", fmt.Errorf("the watch through %s: %s %v", through, ev.Type, ev.Object)
			}
			if l.Name != before.Name {
				continue
			}
			if ev.Type == watch.Modified && (l.Spec.RenewTime == nil || l.Spec.RenewTime.Time.Before(killed)) {
				continue // a renewal by the killed process
			}
			if ev.Type == watch.Deleted {
				events = append(events, string(ev.Type))
				continue
			}
			who := "same holder"
			if holder(*l) != holder(before) {
				who = "new holder"
			}
			events = append(events, string(ev.Type)+" ("+who+")")
			return strings.Join(events, ", "), nil
		case <-deadline:
			return "", fmt.Errorf("%s's lease neither renewed nor created within a minute of its restart; events: %q", restarted, events)
		}
	}
}

func holder(l coordinationv1.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// TestRestart134StaysDropped: what a 1.34 server's restart (its lease renewed, its holder kept,
// no lease event) means for a 1.34 peer that dropped it (docs/behaviour.md §11.4). kas-a
// (v1.34.4) is the only server of batch/v1; kas-b runs v1.34.4, kas-c v1.35.4. kas-a is
// SIGKILLed and, once its endpoint key has expired, kas-c is stopped: its lease is deleted, kas-b
// rebuilds its peer-discovery cache and drops the dead kas-a (404 for jobs). kas-a is started
// again: kas-b, whose 5 retries of the failed sync were over within moments, keeps answering
// 404. kas-c is started again: a lease event, kas-b rebuilds and proxies to kas-a. `mvpctl
// simulate run` from the snapshot taken before the kill predicts kas-b's answer after each step.
func TestRestart134StaysDropped(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the SIGKILL and restarts")
	}
	off := []string{"--runtime-config=batch/v1=false"}
	cp := startWithOld(t, []string{"kas-a", "kas-b"},
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_34},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_34, ExtraFlags: off},
		harness.ServerSpec{Name: "kas-c", Version: harness.V1_35, ExtraFlags: off},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	b := cp.Server("kas-b")
	simulated := simulatedJobs(t, b, "crash:kas-a", "stop:kas-c", "start:kas-a", "start:kas-c")
	var observed []string
	killThenLeaseEvent(ctx, t, cp, func() error { return cp.Stop("kas-c") })
	observed = append(observed, "stop kas-c: "+observeJobs(ctx, b, "not-found", 20*time.Second))
	if err := cp.Restart(ctx, "kas-a"); err != nil {
		t.Fatal(err)
	}
	// Anything but the 404 within 20 s would show a rebuild the model does not make.
	observed = append(observed, "start kas-a: "+observeJobs(ctx, b, "proxied", 20*time.Second))
	if err := cp.Restart(ctx, "kas-c"); err != nil {
		t.Fatal(err)
	}
	observed = append(observed, "start kas-c: "+observeJobs(ctx, b, "proxied", 20*time.Second))
	compareJobs(t, "kas-b", observed, simulated, "stop kas-c: not-found", "start kas-a: not-found", "start kas-c: proxied")
}

// TestRestart134RelearnedByRetry: the same restart seen by a 1.35 peer. kas-a (v1.34.4) is the
// only server of batch/v1; kas-c and kas-d run v1.35.4. kas-a is SIGKILLed, and kas-d stopped
// once kas-a's endpoint key has expired: kas-c rebuilds and drops kas-a (404), and keeps
// retrying the failed sync (20 retries over about 55 min). kas-a is started again with no lease
// event: kas-c's next retry learns it, and kas-c proxies again.
func TestRestart134RelearnedByRetry(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the SIGKILL and restarts")
	}
	off := []string{"--runtime-config=batch/v1=false"}
	cp := startWith134(t, "kas-a",
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_34},
		harness.ServerSpec{Name: "kas-c", Version: harness.V1_35, ExtraFlags: off},
		harness.ServerSpec{Name: "kas-d", Version: harness.V1_35, ExtraFlags: off},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := cp.Server("kas-c")
	simulated := simulatedJobs(t, c, "crash:kas-a", "stop:kas-d", "start:kas-a")
	var observed []string
	killThenLeaseEvent(ctx, t, cp, func() error { return cp.Stop("kas-d") })
	observed = append(observed, "stop kas-d: "+observeJobs(ctx, c, "not-found", 20*time.Second))
	if err := cp.Restart(ctx, "kas-a"); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	observed = append(observed, "start kas-a: "+observeJobs(ctx, c, "proxied", time.Minute))
	t.Logf("kas-c proxied again %s after kas-a's restart", time.Since(started).Round(100*time.Millisecond))
	compareJobs(t, "kas-c", observed, simulated, "stop kas-d: not-found", "start kas-a: proxied")
}

// killThenLeaseEvent SIGKILLs kas-a and, once its endpoint key has expired (a 1.34 server's
// rebuild that dials a dead peer whose key still lives exits, §11.2), makes a lease event.
func killThenLeaseEvent(ctx context.Context, t *testing.T, cp *harness.ControlPlane, event func() error) {
	t.Helper()
	if err := cp.Kill("kas-a"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Second) // past the key's 25 s bound
	if err := event(); err != nil {
		t.Fatal(err)
	}
}

// simulatedJobs is `mvpctl simulate run` of steps from a snapshot taken through s now: s's
// answer for jobs after each step, "STEP: OUTCOME".
func simulatedJobs(t *testing.T, s *harness.Server, steps ...string) map[string]string {
	t.Helper()
	before, _ := mvpctlSnapshot(t, t.TempDir()+"/before.json", []int{0}, "--kubeconfig", s.Kubeconfig)
	args := []string{"simulate", "run", "--snapshot", before.Path, "-o", "json"}
	for _, st := range steps {
		args = append(args, "--step", st)
	}
	r := runMvpctl(t, args...)
	var sim simulationDoc
	if err := json.Unmarshal(r.Stdout, &sim); err != nil {
		t.Fatalf("%s\n%v", r, err)
	}
	got := map[string]string{}
	for _, st := range sim.Steps {
		for _, row := range st.Routes.Rows {
			for _, cell := range row.Cells {
				if row.Name == "batch/v1/jobs" && cell.Server == s.Name {
					got[st.Step] = mvp.OutcomeKey(mvp.Outcome(cell.Outcome), mvp.Unavailable503(cell.Unavailable))
				}
			}
		}
	}
	return got
}

// observeJobs is s's answer for jobs once it is want, or within's end.
func observeJobs(ctx context.Context, s *harness.Server, want string, within time.Duration) string {
	var observed string
	for deadline := time.Now().Add(within); ; time.Sleep(500 * time.Millisecond) {
		if observed = observedKey(observeRoute(ctx, s, batchJobs).obs); observed == want || time.Now().After(deadline) {
			return observed
		}
	}
}

// compareJobs wants observed ("STEP: OUTCOME" each) to be want, and the simulation to agree.
func compareJobs(t *testing.T, server string, observed []string, simulated map[string]string, want ...string) {
	t.Helper()
	t.Logf("%s for jobs: observed %q; simulated %v", server, observed, simulated)
	for i, w := range want {
		step, outcome, _ := strings.Cut(w, ": ")
		if i >= len(observed) || observed[i] != w || simulated[step] != outcome {
			t.Errorf("%s for jobs after %s: observed %q, simulated %s; want %s", server, step, observed, simulated[step], outcome)
		}
	}
}
