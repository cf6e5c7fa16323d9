package e2e

// `mvpctl probe` against real kube-apiservers: the real binary, a live snapshot
// each time, predictions compared with real requests. Helpers here are prefixed "probeCmd"
// to stay clear of the scenario files' names.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/probe"
	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// probeCmdFast are the bounds of the e2e runs: the loopback servers take more than the
// defaults (4 in flight, 10/s) comfortably, and the kill phase must fit in the ~5-15 s the
// crashed peer's endpoint key still lives.
var probeCmdFast = []string{"--qps", "100", "--probe-concurrency", "8"}

// probeCmdRun runs `mvpctl probe -o json` with args, checks the exit code and decodes the report.
func probeCmdRun(t *testing.T, kubeconfig string, wantExit int, args ...string) (*probe.Report, mvpctlResult) {
	t.Helper()
	all := append(append([]string{"probe", "--kubeconfig", kubeconfig, "-o", "json"}, probeCmdFast...), args...)
	r := runMvpctl(t, all...)
	t.Logf("mvpctl %s: exit %d after %s", strings.Join(all, " "), r.Exit, r.Took.Round(time.Millisecond))
	if len(r.Stderr) > 0 {
		t.Logf("stderr:\n%s", strings.TrimSpace(string(r.Stderr)))
	}
	var rep probe.Report
	if err := json.Unmarshal(r.Stdout, &rep); err != nil {
		t.Fatalf("%s\ndecoding the report: %v\n%.2000s", r, err, r.Stdout)
	}
	probeCmdLog(t, &rep)
	if r.Exit != wantExit {
		t.Fatalf("%s\nwant exit %d", r, wantExit)
	}
	return &rep, r
}

// probeCmdLog logs the report as the table would show it.
func probeCmdLog(t *testing.T, rep *probe.Report) {
	t.Helper()
	var b strings.Builder
	for _, r := range rep.Results {
		st := ""
		if r.Observed.Normal != nil && r.Observed.ForcedLocal != nil {
			st = fmt.Sprintf("%d/%d", r.Observed.Normal.Status, r.Observed.ForcedLocal.Status)
		}
		fmt.Fprintf(&b, "  %-6s %-58s %-6s %-22s %-22s %-8s %-7s %s\n", r.Server, r.Name, r.Verb, r.Predicted.Text, r.Observed.Text, r.Verdict, st, r.Note+r.Observed.Error)
	}
	for _, s := range rep.Servers {
		if m := s.Metrics; m != nil {
			fmt.Fprintf(&b, "  metrics %s: rerouted +%v (%s), peer-proxy errors +%v, the probe saw %d proxied and %d endpoint 503s %s\n",
				s.Name, m.ReroutedTotal, m.CodesText(), m.PeerProxyErrorsTotal, m.ExpectedRerouted, m.ExpectedEndpointErrors, m.Note)
		}
		if !s.Probed {
			fmt.Fprintf(&b, "  server %s not probed: %s\n", s.Name, s.Error)
		}
	}
	t.Logf("probe report: %+v (interrupted %q)\n%s", rep.Summary, rep.Interrupted, b.String())
}

func probeCmdServer(rep *probe.Report, name string) *probe.ServerReport {
	for i := range rep.Servers {
		if rep.Servers[i].Name == name {
			return &rep.Servers[i]
		}
	}
	return nil
}

// TestProbe: two v1.36.3 apiservers, kas-b with batch/v1 off. `mvpctl probe` must find every
// server × GVR as predicted (exit 0) and kas-b's rerouted counter must grow by what it
// proxied; with a header the servers do not know, the proxying of "forced-local" requests
// must show up as loop-header violations (exit 3); after kas-a is SIGKILLed, kas-b's 503s
// must match the prediction with the right flavour — transport while kas-a's endpoint key
// lives, endpoint-resolution after (exit 2: kas-a itself cannot be probed).
func TestProbe(t *testing.T) {
	harness.SkipIfUnsupported(t)
	mvpctlBinary(t) // built before the timings below
	t0 := time.Now()
	cp := harness.Start(t,
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_36, ExtraFlags: []string{"--runtime-config=api/all=true"}},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_36, ExtraFlags: []string{"--runtime-config=api/all=true,batch/v1=false"}},
	)
	t.Logf("control plane up in %s", time.Since(t0).Round(100*time.Millisecond))
	kc := cp.Server("kas-b").Kubeconfig // through kas-b: it stays up throughout

	t.Run("healthy", func(t *testing.T) {
		rep, _ := probeCmdRun(t, kc, ExitOKForProbe, "--write-dry-run")
		if rep.Summary.Results == 0 || rep.Summary.Match != rep.Summary.Results || rep.Partial {
			t.Fatalf("summary %+v", rep.Summary)
		}
		proxied := 0
		for _, r := range rep.Results {
			if r.Server == "kas-b" && strings.HasPrefix(r.Name, "batch/v1/") {
				if r.Observed.Outcome != mvp.Proxied || r.Observed.Text != "proxy→kas-a" {
					t.Errorf("%s %s on kas-b: observed %s (%s)", r.Name, r.Verb, r.Observed.Text, r.Observed.Why)
				}
				proxied++
			}
			if r.Server == "kas-a" && r.Observed.Outcome != mvp.Local {
				t.Errorf("%s %s on kas-a: observed %s", r.Name, r.Verb, r.Observed.Text)
			}
		}
		if proxied < 8 { // jobs and cronjobs: list, get, watch, create
			t.Errorf("%d batch results on kas-b, want at least 8", proxied)
		}
		for _, name := range []string{"kas-a", "kas-b"} {
			m := probeCmdServer(rep, name).Metrics
			if m == nil || !m.Read {
				t.Fatalf("%s: metrics not read: %+v", name, m)
			}
			if int(m.ReroutedTotal) < m.ExpectedRerouted {
				t.Errorf("%s: apiserver_rerouted_request_total grew by %v, the probe saw %d proxied requests", name, m.ReroutedTotal, m.ExpectedRerouted)
			}
		}
		if m := probeCmdServer(rep, "kas-b").Metrics; m.ExpectedRerouted < proxied || m.ReroutedTotal == 0 {
			t.Errorf("kas-b metrics %+v, want at least %d rerouted", m, proxied)
		}
	})

	t.Run("loop-header", func(t *testing.T) {
		// kas-b does not know this header, so it proxies the "forced-local" requests too:
		// exactly what a server that ignores x-kubernetes-peer-proxied would do.
		rep, r := probeCmdRun(t, kc, ExitFindingsForProbe, "--group", "batch", "--apiserver", "kas-b", "--proxied-header", "X-Mvpctl-E2E-Not-The-Loop-Header")
		if rep.Summary.LoopViolations != 6 || len(rep.LoopHeaderViolations) != 6 || rep.Summary.Mismatch != 0 {
			t.Fatalf("summary %+v", rep.Summary)
		}
		for _, v := range rep.LoopHeaderViolations {
			if v.Server != "kas-b" || v.Header != "X-Mvpctl-E2E-Not-The-Loop-Header: true" {
				t.Errorf("violation %+v", v)
			}
		}
		for _, res := range rep.Results {
			if !strings.Contains(res.Note, "confirmed by "+probe.MetricRerouted) {
				t.Errorf("%s %s: %s", res.Name, res.Verb, res.Note)
			}
		}
		if !strings.Contains(string(r.Stderr), "error: probe: 0 mismatch(es), 6 loop-header violation(s)") {
			t.Errorf("stderr %s", r.Stderr)
		}
		// With the real header, the same servers respect it.
		rep, _ = probeCmdRun(t, kc, ExitOKForProbe, "--group", "batch", "--apiserver", "kas-b")
		if rep.Summary.LoopViolations != 0 || rep.Summary.Match != 6 {
			t.Errorf("summary %+v", rep.Summary)
		}
	})

	t.Run("interrupt", func(t *testing.T) {
		// A slow probe of every GVR, interrupted like Ctrl-C: it stops at once and reports what
		// it measured, and exits 130 (SIGINT).
		args := []string{"probe", "--kubeconfig", kc, "-o", "json", "--all", "--qps", "5"}
		cmd := exec.Command(mvpctlBinary(t), args...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * time.Second)
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		sent := time.Now()
		err := cmd.Wait()
		t.Logf("mvpctl %s: interrupted after 3s, exited %s later (%v); stderr:\n%s", strings.Join(args, " "), time.Since(sent).Round(time.Millisecond), err, errb.String())
		var ee *exec.ExitError
		// 130: interrupted by SIGINT, as a shell reports it; the partial report is printed first.
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Fatalf("exit %v, want 130", err)
		}
		if d := time.Since(sent); d > 5*time.Second {
			t.Errorf("took %s to stop", d)
		}
		var rep probe.Report
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("report: %v\n%.500s", err, out.Bytes())
		}
		if !strings.HasPrefix(rep.Interrupted, "interrupted") || rep.Summary.Match == 0 || rep.Summary.NotMeasured == 0 || rep.Summary.Mismatch != 0 {
			t.Errorf("interrupted %q, summary %+v", rep.Interrupted, rep.Summary)
		}
		if !strings.Contains(errb.String(), "warning: interrupted: stopped before every measurement was made") {
			t.Errorf("stderr %s", errb.String())
		}
	})

	t.Run("killed-peer", func(t *testing.T) {
		if testing.Short() {
			t.Skip("-short: skipping the SIGKILL of a peer (~30 s)")
		}
		if err := cp.Kill("kas-a"); err != nil {
			t.Fatal(err)
		}
		killed := time.Now()
		// A fresh snapshot at once: kas-a's identity lease was renewed less than 10 s ago,
		// its endpoint key (15 s TTL, rewritten every 10 s) still lives: transport 503.
		rep, r := probeCmdRun(t, kc, ExitPartialForProbe, "--group", "batch")
		t.Logf("first probe after the kill finished %s after it", time.Since(killed).Round(time.Millisecond))
		probeCmdExpect503(t, rep, mvp.Transport)
		if !strings.Contains(string(r.Stderr), "warning: partial result: kas-a could not be probed") {
			t.Errorf("stderr %s", r.Stderr)
		}
		if m := probeCmdServer(rep, "kas-b").Metrics; m == nil || m.CodesText() != "503:6" {
			t.Errorf("kas-b metrics %+v: want 6 rerouted 503s", m)
		}

		// Inside the window in which the snapshot cannot know whether the endpoint key still
		// lives: whichever 503 the server gives is one the prediction allows — exit 2 (kas-a
		// cannot be probed), never 3 (a mismatch).
		for _, at := range []time.Duration{5 * time.Second, 10 * time.Second, 15 * time.Second} {
			time.Sleep(time.Until(killed.Add(at)))
			rep, _ := probeCmdRun(t, kc, ExitPartialForProbe, "--group", "batch")
			if rep.Summary.Mismatch != 0 || rep.Summary.Match != 6 {
				t.Errorf("probe %s after the kill: summary %+v, want 6 matches", at, rep.Summary)
			}
		}

		// Past the window (the endpoint key is gone 25 s after the lease's last renewal at the
		// latest): endpoint-resolution 503, certain.
		if d := 30*time.Second - time.Since(killed); d > 0 {
			time.Sleep(d)
		}
		rep, _ = probeCmdRun(t, kc, ExitPartialForProbe, "--group", "batch")
		probeCmdExpect503(t, rep, mvp.EndpointResolution)
		if m := probeCmdServer(rep, "kas-b").Metrics; m == nil || m.PeerProxyErrorsTotal != 6 || m.ReroutedTotal != 0 {
			t.Errorf("kas-b metrics %+v: want 6 endpoint_resolution errors, nothing rerouted", m)
		}
	})
}

// Exit codes of `mvpctl probe` (cmd/mvpctl/root.go).
const (
	ExitOKForProbe       = 0
	ExitPartialForProbe  = 2
	ExitFindingsForProbe = 3
)

// probeCmdExpect503: kas-a cannot be probed; on kas-b every batch request got the 503 of the
// given flavour, as predicted.
func probeCmdExpect503(t *testing.T, rep *probe.Report, flavour mvp.Unavailable503) {
	t.Helper()
	if s := probeCmdServer(rep, "kas-a"); s == nil || s.Probed {
		t.Errorf("kas-a: %+v, want not probed", s)
	}
	if rep.Summary.Results != 6 || rep.Summary.Match != 6 {
		t.Errorf("summary %+v, want 6 matches (jobs and cronjobs on kas-b)", rep.Summary)
	}
	for _, r := range rep.Results {
		if r.Server != "kas-b" || r.Observed.Outcome != mvp.Unavailable || r.Observed.Unavailable != flavour ||
			r.Predicted.Unavailable != flavour || r.Verdict != probe.VerdictMatch {
			t.Errorf("%s %s on %s: predicted %s, observed %s (%s): %s", r.Name, r.Verb, r.Server, r.Predicted.Text, r.Observed.Text, r.Observed.Why, r.Verdict)
		}
	}
}

// TestProbeSkew: real version skew, v1.36.3 and v1.37.1 with default APIs on one etcd: the
// GVRs new in 1.37 are proxied by the 1.36 server, and every observation matches (exit 0).
func TestProbeSkew(t *testing.T) {
	harness.SkipIfUnsupported(t)
	if testing.Short() {
		t.Skip("-short: skipping the 1.36/1.37 control plane")
	}
	mvpctlBinary(t)
	cp := harness.Start(t,
		harness.ServerSpec{Name: "kas-136", Version: harness.V1_36},
		harness.ServerSpec{Name: "kas-137", Version: harness.V1_37},
	)
	rep, _ := probeCmdRun(t, cp.Kubeconfig, ExitOKForProbe)
	if rep.Summary.Results == 0 || rep.Summary.Match != rep.Summary.Results {
		t.Fatalf("summary %+v", rep.Summary)
	}
	proxied := 0
	for _, r := range rep.Results {
		if r.Observed.Outcome == mvp.Proxied {
			proxied++
			if r.Server != "kas-136" || r.Observed.Text != "proxy→kas-137" {
				t.Errorf("%s %s on %s: observed %s", r.Name, r.Verb, r.Server, r.Observed.Text)
			}
		}
	}
	if proxied == 0 {
		t.Error("nothing proxied: the skew between the versions proved nothing")
	}
	if m := probeCmdServer(rep, "kas-136").Metrics; m == nil || int(m.ReroutedTotal) < proxied {
		t.Errorf("kas-136 metrics %+v, want at least %d rerouted", m, proxied)
	}
}
