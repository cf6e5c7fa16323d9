package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// preflightJSON is what TestPreflightGate reads of a preflight report.
type preflightJSON struct {
	Findings []struct{ Check, Severity, Subject, Message, Hint string }
	Accepted []struct{ Check, Subject string }
	Summary  struct{ Blocking, Warning, Info, Accepted, Stale int }
}

func runPreflight(t *testing.T, wantExit int, args ...string) preflightJSON {
	t.Helper()
	r := runMvpctl(t, append([]string{"preflight", "--to", "1.37", "-o", "json"}, args...)...)
	var rep preflightJSON
	if err := json.Unmarshal(r.Stdout, &rep); err != nil {
		t.Fatalf("%s: %v\n%s", r, err, r.Stdout)
	}
	if r.Exit != wantExit {
		t.Errorf("%s\nwant exit %d; findings %+v", r, wantExit, rep.Findings)
	}
	return rep
}

// auditFlags writes the harness's audit policy into dir and returns the kube-apiserver flags
// that log to a file with it.
func auditFlags(t *testing.T, dir string) func(path string) []string {
	t.Helper()
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(harness.AuditPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	return func(path string) []string {
		return []string{"--audit-policy-file=" + policy, "--audit-log-path=" + path, "--audit-log-format=json"}
	}
}

// waitLogged waits until the audit log at path holds n requests of user agent.
func waitLogged(t *testing.T, path, agent string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if bytes.Count(b, []byte(`"userAgent":"`+agent+`"`)) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the %d request(s) of %s are not logged after 30s", path, n, agent)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func findingsOf(rep preflightJSON, check string) map[string]string {
	out := map[string]string{}
	for _, f := range rep.Findings {
		if f.Check == check {
			out[f.Subject] = f.Severity + ": " + f.Message + " — " + f.Hint
		}
	}
	return out
}

// TestPreflightGate, on real apiservers: a healthy plane whose servers counted peer-discovery
// sync errors at start-up gets no MVP031; what only mvc-b serves (batch/v1: mvc-a runs
// without it) is unserved while mvc-b restarts whatever the order (MVP011): blocking for
// batch/v1/jobs, whose client the servers' audit logs name, and for any other GVR of it a
// logged request uses; --write-baseline then a re-run exits 0; then a real new risk — mvc-b
// restarted with a peer address nothing listens on, so mvc-a cannot fetch its discovery —
// fails the gate again, with MVP031 firing.
func TestPreflightGate(t *testing.T) {
	harness.SkipIfUnsupported(t)
	dir := t.TempDir()
	audit := auditFlags(t, dir)
	logA, logB := filepath.Join(dir, "mvc-a-audit.log"), filepath.Join(dir, "mvc-b-audit.log")
	cp := harness.Start(t,
		harness.ServerSpec{Name: "mvc-a", Version: harness.V1_36, ExtraFlags: append([]string{"--runtime-config=batch/v1=false"}, audit(logA)...)},
		harness.ServerSpec{Name: "mvc-b", Version: harness.V1_36, ExtraFlags: audit(logB)},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	if err := cp.WaitPeers(ctx); err != nil {
		t.Fatal(err)
	}

	// A client of batch/v1, through mvc-a (proxied to mvc-b).
	const agent = "preflight-gate-e2e"
	for range 3 {
		resp, err := cp.Server("mvc-a").Get(ctx, "/apis/batch/v1/namespaces/default/jobs?limit=1", "User-Agent", agent)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET jobs via mvc-a: %v %v", err, resp)
		}
	}
	waitLogged(t, logA, agent, 3)

	// Read each server at its own URL: after the break below, mvc-b's published address is a
	// dead one.
	endpoints := []string{"--kubeconfig", cp.Kubeconfig, "--leases=false", "--endpoint", cp.Server("mvc-a").URL, "--endpoint", cp.Server("mvc-b").URL}
	snap, _ := mvpctlSnapshot(t, filepath.Join(dir, "healthy.json"), []int{0}, endpoints...)
	counted := 0.0
	for _, name := range []string{"mvc-a", "mvc-b"} {
		errs := snapServer(snap, name).PeerProxy.PeerDiscoverySyncErrors
		t.Logf("%s: apiserver_peer_discovery_sync_errors_total %v (healthy plane)", name, errs)
		for _, n := range errs {
			counted += n
		}
	}
	if counted == 0 {
		t.Errorf("no peer-discovery sync error counted on a freshly started plane: docs/behaviour.md §5.4 says 8–9 hostport_resolution at start-up, and this case tests MVP031 on them")
	}

	// The audit logs and the counters cover seconds: over the default 7-day evidence window,
	// a window no logged request meets may still have clients, and blocks saying so.
	logs := []string{"--audit-log", "mvc-a=" + logA, "--audit-log", "mvc-b=" + logB}
	short := runPreflight(t, 3, append([]string{"--snapshot", snap.Path, "--no-baseline"}, logs...)...)
	for gvr, f := range findingsOf(short, "MVP011") {
		if !strings.Contains(f, "replayed clients meet it") && (!strings.HasPrefix(f, "blocking: ") || !strings.Contains(f, "looks back less than the 7d evidence window")) {
			t.Errorf("MVP011 on %s over the default window: %s", gvr, f)
		}
	}
	// Over a window they cover, as below, what no logged request meets is a warning.
	traffic := append(logs, "--evidence-window", "1s")
	healthy := append([]string{"--snapshot", snap.Path, "--no-baseline"}, traffic...)
	rep := runPreflight(t, 3, healthy...)
	t.Logf("healthy plane: %+v", rep.Summary)
	if f := findingsOf(rep, "MVP031"); len(f) > 0 {
		t.Errorf("MVP031 on a healthy plane: %v", f)
	}
	windows := findingsOf(rep, "MVP011")
	t.Logf("MVP011: %d GVR(s); batch/v1/jobs: %s; batch/v1/cronjobs: %s", len(windows), windows["batch/v1/jobs"], windows["batch/v1/cronjobs"])
	if jobs := windows["batch/v1/jobs"]; !strings.HasPrefix(jobs, "blocking: ") || !strings.Contains(jobs, agent) || !strings.Contains(jobs, "only mvc-b serves it") {
		t.Errorf("want MVP011 blocking on batch/v1/jobs naming %s; got %+v\n%v", agent, rep.Summary, rep.Findings)
	}
	// Every other window blocks exactly when some logged request meets it (the harness's own
	// clients may have listed cronjobs), and warns saying how much was read otherwise.
	for gvr, f := range windows {
		if blocks, met := strings.HasPrefix(f, "blocking: "), strings.Contains(f, "replayed clients meet it"); blocks != met || !blocks && !strings.Contains(f, "replayed requests (over ") {
			t.Errorf("MVP011 on %s: %s", gvr, f)
		}
	}
	if f := findingsOf(rep, "MVP020")["batch/v1/jobs"]; !strings.HasPrefix(f, "blocking: ") || !strings.Contains(f, agent) {
		t.Errorf("MVP020 on batch/v1/jobs: %q", f)
	}

	// Accept them: the re-run passes, the findings listed as accepted.
	base := filepath.Join(dir, "accepted.txt")
	if r := runMvpctl(t, append([]string{"preflight", "--to", "1.37", "--write-baseline", base, "--reason", "e2e"}, healthy...)...); r.Exit != 0 {
		t.Fatalf("%s", r)
	}
	accepted := append([]string{"--snapshot", snap.Path, "--baseline", base}, traffic...)
	found := len(rep.Findings)
	rep = runPreflight(t, 0, accepted...)
	if rep.Summary.Accepted != found || len(rep.Findings) != 0 || rep.Summary.Stale != 0 {
		t.Errorf("with the baseline: %+v, want %d accepted and nothing else", rep.Summary, found)
	}

	// A new risk for real: mvc-b publishes a peer address nothing listens on. Its restart is
	// an identity-lease event: mvc-a fetches its discovery again, and fails.
	if err := cp.Reconfigure(ctx, "mvc-b", func(s *harness.ServerSpec) { s.UnreachableAdvertise = true }); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second) // mvc-a's failing fetches are retried with backoff
	broken, _ := mvpctlSnapshot(t, filepath.Join(dir, "broken.json"), []int{0}, endpoints...)
	t.Logf("mvc-a: apiserver_peer_discovery_sync_errors_total %v (mvc-b unreachable)", snapServer(broken, "mvc-a").PeerProxy.PeerDiscoverySyncErrors)
	rep = runPreflight(t, 3, append([]string{"--snapshot", broken.Path, "--baseline", base}, traffic...)...)
	t.Logf("broken plane: %+v", rep.Summary)
	fails := findingsOf(rep, "MVP031")
	t.Logf("MVP031: %v; MVP030: %v", fails, findingsOf(rep, "MVP030"))
	if !strings.HasPrefix(fails["mvc-a"], "warning: ") || !strings.Contains(fails["mvc-a"], "what only mvc-b serve") || rep.Summary.Blocking == 0 {
		t.Errorf("want MVP031 (warning) on mvc-a naming mvc-b, and blocking findings; MVP031 %v, findings %+v", fails, rep.Findings)
	}
}
