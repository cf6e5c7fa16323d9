package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestPreflightPrometheusHorizon, on two real 1.36 apiservers scraped by a real Prometheus:
// kas-a also serves networking.k8s.io/v1beta1 (--runtime-config), which 1.37 does not have; a
// client lists its ipaddresses 30 times through kas-a, then both apiservers restart, and their
// counters start again at zero. The counters alone cover seconds of the 7-day window: not a
// pass, naming their span. With --prometheus, over a window that holds the client's samples
// from before the restarts: blocking, naming the requests Prometheus kept (max_over_time: the
// series of the counter before the restart). Over a window after the restarts, which
// Prometheus fully covers and in which no client asked for it: a pass at --fail-on blocking.
func TestPreflightPrometheusHorizon(t *testing.T) {
	harness.SkipIfUnsupported(t)
	if testing.Short() {
		t.Skip("-short: skipping the Prometheus-backed evidence")
	}
	cp := harness.Start(t,
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_36, DefaultProxyConfig: true, ExtraFlags: []string{"--runtime-config=networking.k8s.io/v1beta1=true"}},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_36, DefaultProxyConfig: true},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	var targets []string
	for _, s := range cp.Servers() {
		targets = append(targets, hostPort(t, s.URL))
	}
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
scrape_configs:
- job_name: apiserver
  scheme: https
  tls_config: {ca_file: %q, cert_file: %q, key_file: %q}
  static_configs: [{targets: [%s], labels: {cluster: e2e}}]
`, cp.PKI.ServerCA, cp.PKI.AdminCert, cp.PKI.AdminKey, `"`+strings.Join(targets, `", "`)+`"`)
	prom := harness.StartPrometheus(t, t.TempDir(), config)
	query := func(expr string) []harness.Sample {
		s, err := prom.Query(ctx, expr)
		if err != nil {
			t.Logf("query %s: %v", expr, err)
		}
		return s
	}
	waitFor(t, "both apiservers' request counters in Prometheus", 60*time.Second, func() bool {
		return len(query(`count by (instance) (apiserver_request_total{job="apiserver"})`)) == 2
	})
	heldSince := time.Now()

	const agent, removed = "preflight-prometheus-e2e", "/apis/networking.k8s.io/v1beta1/ipaddresses?limit=1"
	for i := 0; i < 30; i++ {
		if r, err := cp.Server("kas-a").Get(ctx, removed, "User-Agent", agent); err != nil || r.StatusCode != 200 {
			t.Fatalf("GET %s on kas-a: %v %v", removed, err, r)
		}
	}
	waitFor(t, "the 30 lists in Prometheus", 30*time.Second, func() bool {
		return len(query(`sum(apiserver_request_total{job="apiserver",group="networking.k8s.io",version="v1beta1",resource="ipaddresses",verb="LIST"}) >= 30`)) == 1
	})
	// Scraped for a few seconds more before the restarts: the window below starts up to a
	// couple of seconds after heldSince (whole seconds, and the time mvpctl takes to start),
	// and must still hold samples of the 30.
	time.Sleep(5 * time.Second)
	restarted := time.Now()
	for _, name := range []string{"kas-a", "kas-b"} {
		if err := cp.Restart(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "both restarted apiservers scraped", 60*time.Second, func() bool {
		return len(query(fmt.Sprintf(`min(process_start_time_seconds{job="apiserver"}) > %d and count(up{job="apiserver"} == 1) == 2`, restarted.Unix()))) == 1
	})
	if got := query(`sum(apiserver_request_total{job="apiserver",group="networking.k8s.io",version="v1beta1",resource="ipaddresses"})`); len(got) != 0 && got[0].Value != 0 {
		t.Logf("after the restarts the servers count %v requests of ipaddresses again (a client of the apiserver's own?)", got[0].Value)
	}
	clean := time.Now() // no client of it from here on

	dir := t.TempDir()
	snap, _ := mvpctlSnapshot(t, filepath.Join(dir, "start.json"), []int{0, 2}, "--kubeconfig", cp.Kubeconfig)
	start := []string{"--snapshot", snap.Path, "--no-baseline", "--fail-on", "blocking"}
	withProm := append(append([]string(nil), start...), "--prometheus", prom.URL, "--prometheus-selector", `cluster="e2e"`)
	seconds := func(since time.Time) string { return fmt.Sprintf("%ds", int(time.Since(since).Seconds())) }

	find := func(rep preflightJSON, check, sev, says string) bool {
		for _, f := range rep.Findings {
			if f.Check == check && f.Severity == sev && strings.Contains(f.Message, says) {
				t.Logf("%s %s %s: %s", f.Check, f.Severity, f.Subject, f.Message)
				return true
			}
		}
		return false
	}
	// The counters alone: seconds since the restarts.
	if rep := runPreflight(t, 3, start...); !find(rep, "MVP040", "blocking", "the evidence read looks back less than the 7d evidence window (--evidence-window): the request counters of kas-a ") {
		t.Errorf("counters alone: no blocking MVP040 naming the counters' short span: %+v", rep.Findings)
	}
	// Prometheus over a window from before the client's requests.
	if rep := runPreflight(t, 3, append(withProm, "--evidence-window", seconds(heldSince))...); !find(rep, "MVP040", "blocking", "request(s) on instance "+targets[0]+" kept by Prometheus") {
		t.Errorf("--prometheus over the client's requests: no blocking MVP040 naming them: %+v", rep.Findings)
	}
	// Prometheus over a window after the restarts, with no client of it.
	time.Sleep(5 * time.Second)
	rep := runPreflight(t, 0, append(withProm, "--evidence-window", seconds(clean))...)
	if !find(rep, "MVP040", "warning", "no request kept by Prometheus "+prom.URL) || rep.Summary.Blocking != 0 {
		t.Errorf("--prometheus over a clean window: want a pass, MVP040 a warning naming Prometheus; %+v", rep.Findings)
	}
}
