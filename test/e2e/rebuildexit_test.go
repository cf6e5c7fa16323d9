package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestRebuildExit134: the 1.33/1.34 defect of docs/behaviour.md §11.2 on real servers. kas-a
// (v1.34.4, gate on, --peer-ca-file) runs the peer-discovery rebuild that dereferences nil when
// a peer's discovery fetch gets an answer other than 200; kas-b and kas-c are v1.35.4 (the skew
// policy allows one minor), kas-b the
// only server of batch/v1. Before anything happens, preflight warns (MVP032) for kas-a only.
// kas-b is SIGKILLed; a live snapshot is taken at once; then an identity lease is created — what
// an apiserver joining the control plane does first — which makes every server rebuild. Just
// before that, kas-c's answer for jobs says whether kas-b's endpoint key still lived (503
// transport) or not (endpoint-resolution). mvpctl's prediction from the snapshot (explain's
// hazard, preflight's blocking MVP032 for kas-a, nothing for kas-c) is then compared with what
// happened: with the key alive kas-a must exit with the nil dereference and kas-c survive; a
// lease event after the key expired would leave the defect unexercised, and fails the test.
// Beforehand, `simulate run --step crash:kas-b` from the first snapshot must name kas-a as the
// server a lease event in the crash's first phase takes down.
func TestRebuildExit134(t *testing.T) {
	harness.SkipIfUnsupported(t)
	if testing.Short() {
		t.Skip("-short: skipping the v1.34 SIGKILL")
	}
	cp := startWith134(t, "kas-a",
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_34, ExtraFlags: []string{"--runtime-config=batch/v1=false"}},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_35},
		harness.ServerSpec{Name: "kas-c", Version: harness.V1_35, ExtraFlags: []string{"--runtime-config=batch/v1=false"}},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	a, c := cp.Server("kas-a"), cp.Server("kas-c")
	dir := t.TempDir()

	before, _ := mvpctlSnapshot(t, dir+"/before.json", []int{0}, "--kubeconfig", c.Kubeconfig)
	if got := rebuildExitFindings(t, before.Path); strings.Join(got, ",") != "kas-a/warning" {
		t.Fatalf("preflight --to 1.35 before the kill: MVP032 %v, want kas-a/warning only", got)
	}

	// The rehearsal: a simulated SIGKILL of kas-b names kas-a in its first phase.
	r := runMvpctl(t, "simulate", "run", "--snapshot", before.Path, "--step", "crash:kas-b", "-o", "json")
	var sim simulationDoc
	if err := json.Unmarshal(r.Stdout, &sim); err != nil {
		t.Fatalf("%s\n%v", r, err)
	}
	var simulated []string
	for _, st := range sim.Steps {
		for _, n := range st.Notes {
			if strings.Contains(n, "exits if an apiserver starts or stops") {
				simulated = append(simulated, n)
			}
		}
	}
	if len(simulated) != 1 || !strings.HasPrefix(simulated[0], "kas-a exits") {
		t.Fatalf("simulate run --step crash:kas-b: rebuild-exit notes %q, want one for kas-a", simulated)
	}

	if err := cp.Kill("kas-b"); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	after, _ := mvpctlSnapshot(t, dir+"/after-kill.json", []int{2}, "--kubeconfig", c.Kubeconfig)
	keyState := observeEndpointKey(ctx, t, c)
	keyAlive, keyGone := keyState == "unavailable/transport", keyState == "unavailable/endpoint-resolution"
	event := time.Now()
	cs, err := kubernetes.NewForConfig(c.RestConfig())
	if err != nil {
		t.Fatal(err)
	}
	holder := "apiserver-e2e-joining_0"
	if _, err := cs.CoordinationV1().Leases("kube-system").Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "apiserver-e2e-joining", Labels: map[string]string{"apiserver.kubernetes.io/identity": "kube-apiserver"}},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	exited := false
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline) && !exited; time.Sleep(250 * time.Millisecond) {
		exited = !a.Running()
	}
	// The whole log: the panic's goroutine dump that follows the message can be longer than any tail.
	log, err := os.ReadFile(a.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	panicked := bytes.Contains(log, []byte("invalid memory address or nil pointer dereference"))

	// What mvpctl predicted from the snapshot taken after the kill.
	r = runMvpctl(t, "explain", "--snapshot", after.Path, "-o", "json", batchJobs.Method, batchJobs.Path)
	var e struct {
		Servers []struct {
			Server  string   `json:"server"`
			Hazards []string `json:"hazards"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(r.Stdout, &e); err != nil {
		t.Fatalf("%s\n%v", r, err)
	}
	hazard := map[string]bool{}
	for _, d := range e.Servers {
		hazard[d.Server] = len(d.Hazards) > 0
	}
	findings := rebuildExitFindings(t, after.Path)
	t.Logf("kas-b SIGKILLed; snapshot taken; lease created %s after the kill, kas-c's answer for jobs then: %s\n"+
		"  predicted: kas-a hazard %v, kas-c hazard %v, MVP032 %v\n"+
		"  observed:  kas-a exited %v (nil dereference in its log: %v), kas-c running %v",
		event.Sub(killed).Round(100*time.Millisecond), keyState, hazard["kas-a"], hazard["kas-c"], findings, exited, panicked, c.Running())
	if !hazard["kas-a"] || hazard["kas-c"] || strings.Join(findings, ",") != "kas-a/blocking" {
		t.Errorf("prediction after the kill: hazards %v, MVP032 %v; want kas-a only, blocking", hazard, findings)
	}
	if !c.Running() {
		t.Error("kas-c (v1.35.4) exited: 1.35+ is not supposed to have the defect")
	}
	switch {
	case keyAlive && !(exited && panicked):
		t.Errorf("kas-b's endpoint key lived at the lease event, yet kas-a did not exit with the nil dereference (exited %v):\n%s", exited, a.LogTail(30))
	case keyGone && exited:
		t.Errorf("kas-b's endpoint key had expired at the lease event (%s after the kill), yet kas-a exited", event.Sub(killed).Round(100*time.Millisecond))
	case keyGone:
		// The key lives at least 4.6 s after the kill; a snapshot slower than that leaves the
		// defect unexercised, which must not pass unnoticed.
		t.Errorf("the lease event came %s after the kill, when kas-b's endpoint key had already expired: the exit was not exercised (the snapshot was too slow)",
			event.Sub(killed).Round(100*time.Millisecond))
	case !keyAlive && !(exited && panicked):
		// kas-c's answer named neither 503 three times: nothing tells whether the key lived, and
		// kas-a did not show it by exiting.
		t.Errorf("kas-c answered %s for jobs after the kill, neither 503, and kas-a did not exit with the nil dereference (exited %v)", keyState, exited)
	}
}

// observeEndpointKey asks kas-c for jobs (served by kas-b only) until the answer is one of the
// two 503s a killed peer's request gets, at most three times: the transport 503 while kas-b's
// endpoint key lives, the endpoint-resolution 503 after it expired. An answer that is neither (a
// request of the test's own that failed on a loaded machine) says nothing about the key; it is
// logged and the question asked again.
func observeEndpointKey(ctx context.Context, t *testing.T, c *harness.Server) string {
	t.Helper()
	var key string
	for try := 1; try <= 3; try++ {
		o := observeRoute(ctx, c, batchJobs)
		key = observedKey(o.obs)
		if o.err != nil {
			key = "error: " + o.err.Error()
		}
		if key == "unavailable/transport" || key == "unavailable/endpoint-resolution" {
			return key
		}
		t.Logf("kas-c's answer for jobs after the kill, try %d: %s", try, key)
		time.Sleep(150 * time.Millisecond)
	}
	return key
}

// rebuildExitFindings runs preflight --to 1.35 on a snapshot and returns its MVP032 findings
// as subject/severity.
func rebuildExitFindings(t *testing.T, snapPath string) []string {
	t.Helper()
	r := runMvpctl(t, "preflight", "--snapshot", snapPath, "--to", "1.35", "-o", "json")
	var rep struct {
		Findings []struct{ Check, Subject, Severity string }
	}
	if err := json.Unmarshal(r.Stdout, &rep); err != nil {
		t.Fatalf("%s\npreflight -o json: %v", r, err)
	}
	var out []string
	for _, f := range rep.Findings {
		if f.Check == "MVP032" {
			out = append(out, f.Subject+"/"+f.Severity)
		}
	}
	return out
}
