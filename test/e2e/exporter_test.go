package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// alertLog follows Prometheus' alerts: for each alert (name and labels), when it was first
// seen pending, firing, and when it was gone again after firing.
type alertLog struct {
	mu     sync.Mutex
	states map[string]*alertTimes
	active map[string]bool // pending or firing at the last poll
	errs   int
}

type alertTimes struct {
	pending, firing, resolved time.Time
}

func alertKey(a harness.Alert) string {
	var parts []string
	for _, l := range []string{"server", "group", "version", "resource", "reason"} {
		if v, ok := a.Labels[l]; ok {
			parts = append(parts, l+"="+v)
		}
	}
	return a.Labels["alertname"] + "{" + strings.Join(parts, ",") + "}"
}

// follow polls the alerts every 200ms until ctx ends.
func (l *alertLog) follow(ctx context.Context, p *harness.Prometheus) {
	for ctx.Err() == nil {
		alerts, err := p.Alerts(ctx)
		now := time.Now()
		l.mu.Lock()
		if err != nil {
			l.errs++
		} else {
			active := map[string]bool{}
			for _, a := range alerts {
				k := alertKey(a)
				active[k] = true
				st := l.states[k]
				if st == nil || !st.resolved.IsZero() {
					st = &alertTimes{} // a new episode
					l.states[k] = st
				}
				if st.pending.IsZero() && a.State == "pending" {
					st.pending = now
				}
				if st.firing.IsZero() && a.State == "firing" {
					st.firing = now
				}
			}
			for k, st := range l.states {
				if !active[k] && !st.firing.IsZero() && st.resolved.IsZero() {
					st.resolved = now
				}
			}
			l.active = active
		}
		l.mu.Unlock()
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// anyActive says whether an alert whose key begins with one of prefixes is pending or firing.
func (l *alertLog) anyActive(prefixes ...string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k := range l.active {
		for _, p := range prefixes {
			if strings.HasPrefix(k, p) {
				return true
			}
		}
	}
	return false
}

// get is the alert's times (zero when never seen).
func (l *alertLog) get(key string) alertTimes {
	l.mu.Lock()
	defer l.mu.Unlock()
	if st := l.states[key]; st != nil {
		return *st
	}
	return alertTimes{}
}

// checkReadiness: the exporter's upgrade gate against to is in Prometheus: one ready series,
// the verdict one-hot over the four results and agreeing with it (not ready: blocking or
// partial), and the findings by check; kas-c has no --peer-ca-file, so against 1.37 the
// peer-proxy-configured check (MVP003) finds it.
func checkReadiness(t *testing.T, query func(string) []harness.Sample, to string) {
	t.Helper()
	sel := `{job="mvpctl-exporter",to="` + to + `"}`
	waitFor(t, "mvpctl_upgrade_ready"+sel+" in Prometheus", 60*time.Second, func() bool { return len(query("mvpctl_upgrade_ready"+sel)) == 1 })
	ready := query("mvpctl_upgrade_ready" + sel)
	verdict := query("mvpctl_upgrade_verdict" + sel)
	results, on, ones := map[string]bool{}, "", 0
	for _, v := range verdict {
		results[v.Labels["result"]] = true
		if v.Value == 1 {
			on, ones = v.Labels["result"], ones+1
		}
	}
	if len(ready) != 1 || len(verdict) != 4 || len(results) != 4 || ones != 1 {
		t.Fatalf("to %s: ready %v, verdict %v: want one ready series and a one-hot verdict over 4 results", to, ready, verdict)
	}
	if notReady := on == "blocking" || on == "partial"; (ready[0].Value == 0) != notReady {
		t.Errorf("to %s: ready %v, yet the verdict is %s", to, ready[0].Value, on)
	}
	var found []string
	for _, f := range query("mvpctl_upgrade_findings" + sel + " > 0") {
		found = append(found, fmt.Sprintf("%s/%s=%v", f.Labels["check"], f.Labels["severity"], f.Value))
	}
	sort.Strings(found)
	t.Logf("upgrade gate against %s: ready %v, verdict %s, findings %v", to, ready[0].Value, on, found)
	// The servers started moments ago: their counters cover seconds, far less than the
	// default 7-day evidence window, and the gate says so.
	span, window := query(`mvpctl_upgrade_evidence_span_seconds`+strings.TrimSuffix(sel, "}")+`,source="request-counters"}`), query("mvpctl_upgrade_evidence_window_seconds"+sel)
	if len(span) != 1 || len(window) != 1 || span[0].Value <= 0 || span[0].Value >= 3600 || window[0].Value != 7*24*3600 {
		t.Errorf("to %s: evidence span %v, window %v: want the counters' span of seconds to minutes, and a window of 7 days", to, span, window)
	}
	if to == "1.37" && len(query(`sum(mvpctl_upgrade_findings{job="mvpctl-exporter",to="1.37",check="MVP003"}) >= 1`)) != 1 {
		t.Errorf("to 1.37: no MVP003 finding for kas-c, which has no --peer-ca-file: %v", found)
	}
}

// waitFor polls cond every 200ms until it holds or timeout passes.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) time.Time {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return time.Now()
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// applyManifests creates every object of a YAML file (the kinds deploy/exporter holds, but
// the Prometheus Operator's) through admin; query is added to each request (dryRun=All:
// validated by the apiserver, nothing stored).
func applyManifests(ctx context.Context, t *testing.T, admin *harness.Server, file, query string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	createObjects(ctx, t, admin, file, strings.Split(string(data), "\n---\n"), query)
}

// createObjects creates each YAML document (an object of those kinds) through admin, in order.
func createObjects(ctx context.Context, t *testing.T, admin *harness.Server, file string, docs []string, query string) {
	t.Helper()
	for _, doc := range docs {
		var meta struct {
			Kind     string
			Metadata struct{ Name, Namespace string }
		}
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatal(err)
		}
		path := map[string]string{
			"Namespace":          "/api/v1/namespaces",
			"ServiceAccount":     "/api/v1/namespaces/" + meta.Metadata.Namespace + "/serviceaccounts",
			"ClusterRole":        "/apis/rbac.authorization.k8s.io/v1/clusterroles",
			"ClusterRoleBinding": "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
			"Role":               "/apis/rbac.authorization.k8s.io/v1/namespaces/" + meta.Metadata.Namespace + "/roles",
			"RoleBinding":        "/apis/rbac.authorization.k8s.io/v1/namespaces/" + meta.Metadata.Namespace + "/rolebindings",
			"Deployment":         "/apis/apps/v1/namespaces/" + meta.Metadata.Namespace + "/deployments",
			"Service":            "/api/v1/namespaces/" + meta.Metadata.Namespace + "/services",
		}[meta.Kind]
		if path == "" {
			t.Fatalf("%s: cannot apply a %s", file, meta.Kind)
		}
		body, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		r, err := admin.Do(ctx, http.MethodPost, path+query, http.Header{"Content-Type": {"application/json"}}, strings.NewReader(string(body)))
		if err != nil || r.StatusCode != http.StatusCreated {
			t.Fatalf("create %s %s: %v %v", meta.Kind, meta.Metadata.Name, err, r)
		}
	}
}

// serviceAccountDir is what kubelet mounts for a pod of the service account: a token from
// the TokenRequest API and the cluster's CA.
func serviceAccountDir(ctx context.Context, t *testing.T, cp *harness.ControlPlane, admin *harness.Server, ns, name string) string {
	t.Helper()
	r, err := admin.Do(ctx, http.MethodPost, "/api/v1/namespaces/"+ns+"/serviceaccounts/"+name+"/token",
		http.Header{"Content-Type": {"application/json"}}, strings.NewReader(`{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":3600}}`))
	if err != nil || r.StatusCode != http.StatusCreated {
		t.Fatalf("token request: %v %v", err, r)
	}
	var tr struct {
		Status struct{ Token string }
	}
	if err := json.Unmarshal(r.Body, &tr); err != nil || tr.Status.Token == "" {
		t.Fatalf("token request: %v %s", err, r.Body)
	}
	dir := filepath.Join(t.TempDir(), "serviceaccount")
	ca, err := os.ReadFile(cp.PKI.ServerCA)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for f, b := range map[string][]byte{"token": []byte(tr.Status.Token), "ca.crt": ca, "namespace": []byte(ns)} {
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestExporter: deploy/exporter's RBAC is applied to a real control plane (its Deployment
// and Service validated there with a dry run), and `mvpctl watch --metrics-address` runs as
// it would in a pod — no kubeconfig, the in-cluster configuration (KUBERNETES_SERVICE_HOST
// and _PORT at a load balancer in front of the three apiservers, a service account token and
// CA in a directory) and exactly that RBAC — while a real Prometheus scrapes it (and the apiservers'
// apiserver_request_total) every 3s and evaluates deploy/exporter's alerts with their `for:`
// shortened to 4s. The suite performs a real rolling upgrade of three v1.36 servers to v1.37,
// kas-c without the proxy filter, with a SIGKILL of kas-a on the way, and GETs
// storageversionmigrations (served by v1.37 only) on every server every 200ms:
//
//   - kas-a upgraded: kas-c answers real 404s for the GVR kas-a serves; Prometheus shows
//     kas-c's at-risk gauge > 0 within two scrape intervals of kas-a's first 200, and
//     MvpctlGVRFailsForClients (the requests are real) and MvpctlMixedVersionsWithoutProxyFilter
//     go pending → firing;
//   - kas-a SIGKILLed: kas-b, which proxies the GVR to kas-a, answers 503; MvpctlCrashWindow
//     goes pending → firing, and resolves once kas-a is back;
//   - kas-b and kas-c upgraded: every alert resolves.
//
// The exporter stays ready, reads every server's /metrics (the RBAC suffices: no 403), and
// its RSS over the run is logged.
func TestExporter(t *testing.T) {
	harness.SkipIfUnsupported(t)
	if testing.Short() {
		t.Skip("-short: skipping the rolling upgrade and the SIGKILL")
	}
	began := time.Now()
	cp := harness.Start(t,
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_36},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_36},
		harness.ServerSpec{Name: "kas-c", Version: harness.V1_36, NoPeerCA: true},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	const (
		gvr            = "storagemigration.k8s.io/v1/storageversionmigrations"
		path           = "/apis/storagemigration.k8s.io/v1/storageversionmigrations?limit=1"
		scrapeInterval = 3 * time.Second
	)
	admin := cp.Server("kas-a")
	applyManifests(ctx, t, admin, filepath.Join(exporterDeploy, "rbac.yaml"), "")
	for _, f := range []string{"deployment.yaml", "service.yaml"} { // the apiserver validates them
		applyManifests(ctx, t, admin, filepath.Join(exporterDeploy, f), "?dryRun=All")
	}
	saDir := serviceAccountDir(ctx, t, cp, admin, "mvpctl", "mvpctl-exporter")
	var backends []string
	for _, s := range cp.Servers() {
		backends = append(backends, hostPort(t, s.URL))
	}
	lb := startFailoverLB(t, backends)
	lbHost, lbPort, err := net.SplitHostPort(strings.TrimPrefix(lb.URL(), "https://"))
	if err != nil {
		t.Fatal(err)
	}

	// The exporter, as in a pod: no kubeconfig anywhere, the service environment.
	addr := freeLocalAddr(t)
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "KUBECONFIG=") && !strings.HasPrefix(e, "HOME=") {
			env = append(env, e)
		}
	}
	env = append(env, "HOME="+t.TempDir(), "KUBERNETES_SERVICE_HOST="+lbHost, "KUBERNETES_SERVICE_PORT="+lbPort, "MVPCTL_SERVICE_ACCOUNT_DIR="+saDir)
	logDir := t.TempDir()
	stdoutF, err := os.Create(filepath.Join(logDir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	stderrF, err := os.Create(filepath.Join(logDir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	exporter := exec.Command(mvpctlBinary(t), "watch", "--metrics-address", addr, "--interval", "500ms", "-o", "json")
	exporter.Env, exporter.Stdout, exporter.Stderr = env, stdoutF, stderrF
	if err := exporter.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = exporter.Process.Kill() }()
	readyAt := waitFor(t, "the exporter's /readyz", 60*time.Second, func() bool {
		r, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			return false
		}
		r.Body.Close()
		return r.StatusCode == http.StatusOK
	})
	t.Logf("exporter ready %s after the start", readyAt.Sub(began).Round(time.Millisecond))

	// Prometheus: the exporter and the apiservers, the alerts with `for:` shortened.
	promDir := t.TempDir()
	rules := exporterRuleGroups(t, func(s string) string {
		return regexp.MustCompile(`(?m)^(\s+for: )\S+$`).ReplaceAllString(s, "${1}4s")
	})
	if err := os.WriteFile(filepath.Join(promDir, "mvpctl.rules.yaml"), rules, 0o644); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`global:
  scrape_interval: %s
  evaluation_interval: 1s
rule_files: [mvpctl.rules.yaml]
scrape_configs:
- job_name: mvpctl-exporter
  static_configs: [{targets: [%q]}]
- job_name: apiserver
  scheme: https
  tls_config: {ca_file: %q, cert_file: %q, key_file: %q}
  static_configs: [{targets: [%s]}]
`, scrapeInterval, addr, cp.PKI.ServerCA, cp.PKI.AdminCert, cp.PKI.AdminKey, `"`+strings.Join(backends, `", "`)+`"`)
	prom := harness.StartPrometheus(t, promDir, config)
	query := func(expr string) []harness.Sample {
		s, err := prom.Query(ctx, expr)
		if err != nil {
			t.Logf("query %s: %v", expr, err)
		}
		return s
	}
	waitFor(t, "the three servers up in Prometheus", 60*time.Second, func() bool {
		return len(query(`mvpctl_apiserver_up{job="mvpctl-exporter"} == 1`)) == 3
	})
	checkReadiness(t, query, "1.37")
	alerts := &alertLog{states: map[string]*alertTimes{}, active: map[string]bool{}}
	followCtx, stopFollow := context.WithCancel(ctx)
	followDone := make(chan struct{})
	go func() { defer close(followDone); alerts.follow(followCtx, prom) }()

	// The test's own requests for the GVR, every 200ms, to each running server.
	var (
		smu     sync.Mutex
		samples []sample
	)
	probeCtx, stopProbes := context.WithCancel(ctx)
	probesDone := make(chan struct{})
	go func() {
		defer close(probesDone)
		for probeCtx.Err() == nil {
			var wg sync.WaitGroup
			for _, s := range cp.Servers() {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if got, ok := getSample(probeCtx, s, path); ok {
						smu.Lock()
						samples = append(samples, got)
						smu.Unlock()
					}
				}()
			}
			wg.Wait()
			select {
			case <-probeCtx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	firstStatus := func(server string, status int, after time.Time) time.Time {
		smu.Lock()
		defer smu.Unlock()
		for _, s := range samples {
			if s.server == server && s.status == status && !s.at.Before(after) {
				return s.at
			}
		}
		return time.Time{}
	}
	step := func(what string, f func() error) time.Time {
		t.Helper()
		t0 := time.Now()
		if err := f(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		t.Logf("%s: %s", what, time.Since(t0).Round(time.Millisecond))
		return t0
	}
	time.Sleep(2 * scrapeInterval)
	for _, a := range []string{"MvpctlGVRFailsForClients", "MvpctlCrashWindow", "MvpctlMixedVersionsWithoutProxyFilter"} {
		if len(query(`ALERTS{alertname="`+a+`"}`)) != 0 {
			t.Errorf("%s before the upgrade", a)
		}
	}

	// 1. kas-a on v1.37: kas-c, without the filter, answers 404 for what kas-a alone serves.
	upgradeStart := step("upgrade kas-a to "+harness.V1_37, func() error { return cp.Upgrade(ctx, "kas-a", harness.V1_37) })
	atRisk := `mvpctl_apiserver_gvrs_at_risk{server="kas-c",outcome="not-found"} > 0`
	gaugeAt := waitFor(t, "kas-c's at-risk gauge > 0 in Prometheus", 60*time.Second, func() bool { return len(query(atRisk)) > 0 })
	served := waitFor(t, "kas-a's first 200 for "+gvr, 10*time.Second, func() bool { return !firstStatus("kas-a", 200, upgradeStart).IsZero() })
	served = firstStatus("kas-a", 200, upgradeStart)
	real404 := firstStatus("kas-c", 404, served)
	lag := gaugeAt.Sub(served)
	t.Logf("kas-a served %s %s after the upgrade began; kas-c's next 404 %s later; the at-risk gauge > 0 in Prometheus %s after kas-a's first 200 (two scrape intervals: %s)",
		gvr, served.Sub(upgradeStart).Round(time.Millisecond), real404.Sub(served).Round(time.Millisecond), lag.Round(time.Millisecond), 2*scrapeInterval)
	if real404.IsZero() {
		t.Errorf("kas-c answered no 404 for %s after kas-a served it", gvr)
	}
	if lag > 2*scrapeInterval {
		t.Errorf("the at-risk gauge rose %s after the real 404s began: more than two scrape intervals (%s)", lag.Round(time.Millisecond), 2*scrapeInterval)
	}
	failsKey := `MvpctlGVRFailsForClients{server=kas-c,group=storagemigration.k8s.io,version=v1,resource=storageversionmigrations}`
	mixedKey := `MvpctlMixedVersionsWithoutProxyFilter{server=kas-c}`
	for _, k := range []string{failsKey, mixedKey} {
		waitFor(t, k+" firing", 60*time.Second, func() bool { return !alerts.get(k).firing.IsZero() })
	}
	if err := cp.WaitPeers(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second) // kas-b proxies the GVR to kas-a now

	// 2. SIGKILL kas-a: kas-b proxies the GVR to a dead peer.
	killed := step("SIGKILL kas-a", func() error { return cp.Kill("kas-a") })
	crashKey := ""
	waitFor(t, "MvpctlCrashWindow on kas-b firing", 90*time.Second, func() bool {
		alerts.mu.Lock()
		defer alerts.mu.Unlock()
		for k, st := range alerts.states {
			if strings.HasPrefix(k, "MvpctlCrashWindow{server=kas-b,") && strings.Contains(k, "resource=storageversionmigrations") && !st.firing.IsZero() && st.resolved.IsZero() {
				crashKey = k
				return true
			}
		}
		return false
	})
	crash503 := firstStatus("kas-b", 503, killed)
	t.Logf("kas-b's first 503 %s after the kill", crash503.Sub(killed).Round(time.Millisecond))
	step("restart kas-a", func() error { return cp.Restart(ctx, "kas-a") })
	step("wait for peers", func() error { return cp.WaitPeers(ctx) })
	waitFor(t, crashKey+" resolved", 90*time.Second, func() bool { return !alerts.get(crashKey).resolved.IsZero() })

	// 3. kas-b and kas-c on v1.37: every alert resolves.
	step("upgrade kas-b to "+harness.V1_37, func() error { return cp.Upgrade(ctx, "kas-b", harness.V1_37) })
	upgraded := step("upgrade kas-c to "+harness.V1_37, func() error { return cp.Upgrade(ctx, "kas-c", harness.V1_37) })
	step("wait for peers", func() error { return cp.WaitPeers(ctx) })
	resolvedAt := waitFor(t, "every mvpctl alert resolved", 90*time.Second, func() bool {
		return !alerts.anyActive("MvpctlGVRFails", "MvpctlCrashWindow", "MvpctlMixedVersionsWithoutProxyFilter")
	})
	t.Logf("every alert resolved %s after kas-c's upgrade began", resolvedAt.Sub(upgraded).Round(time.Millisecond))
	// Every server on v1.37: the plane changed, the gate ran again, against the next minor.
	waitFor(t, "the upgrade gate against 1.38 in Prometheus", 60*time.Second, func() bool {
		return len(query(`mvpctl_upgrade_ready{job="mvpctl-exporter",to="1.38"}`)) == 1
	})
	checkReadiness(t, query, "1.38")
	// The identity-lease watch, through the balancer while every server restarted, works at
	// the end: up, and it heard from the server in the last seconds (a watch request every 2s).
	waitFor(t, "the lease watch up and heard from within 10s, in Prometheus", 60*time.Second, func() bool {
		return len(query(`mvpctl_lease_watch_up{job="mvpctl-exporter"} == 1`)) == 1 &&
			len(query(`time() - mvpctl_lease_watch_last_event_timestamp_seconds{job="mvpctl-exporter"} < 10`)) == 1
	})
	t.Logf("lease watch restarts: %v", query(`mvpctl_lease_watch_restarts_total{job="mvpctl-exporter"}`))
	stopProbes()
	<-probesDone
	stopFollow()
	<-followDone

	var table []string
	alerts.mu.Lock()
	keys := make([]string, 0, len(alerts.states))
	for k := range alerts.states {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		st := alerts.states[k]
		rel := func(at time.Time) string {
			if at.IsZero() {
				return "—"
			}
			return "+" + at.Sub(began).Round(100*time.Millisecond).String()
		}
		table = append(table, fmt.Sprintf("%-110s pending %-8s firing %-8s resolved %s", k, rel(st.pending), rel(st.firing), rel(st.resolved)))
	}
	alerts.mu.Unlock()
	t.Logf("alerts (times since the test began; kas-a upgraded at +%s, killed at +%s, kas-c upgraded at +%s):\n%s",
		upgradeStart.Sub(began).Round(100*time.Millisecond), killed.Sub(began).Round(100*time.Millisecond), upgraded.Sub(began).Round(100*time.Millisecond), strings.Join(table, "\n"))
	for _, k := range []string{failsKey, mixedKey, crashKey} {
		st := alerts.get(k)
		if st.pending.IsZero() || st.firing.IsZero() || st.resolved.IsZero() || st.firing.Before(st.pending) || st.resolved.Before(st.firing) {
			t.Errorf("%s: pending %v, firing %v, resolved %v: want pending → firing → resolved", k, st.pending, st.firing, st.resolved)
		}
	}

	// kas-a and kas-b aggregate their peers' discovery: each learned the two others.
	for _, s := range []string{"kas-a", "kas-b"} {
		for _, m := range []string{"mvpctl_apiserver_peers", "mvpctl_apiserver_peers_learned"} {
			if got := query(m + `{server="` + s + `"}`); len(got) != 1 || got[0].Value != 2 {
				t.Errorf("%s{server=%q}: %v, want 2", m, s, got)
			}
		}
	}
	// The exporter read everything its RBAC grants, and its memory over the run.
	for _, s := range []string{"kas-b"} {
		got := query(`sum(mvpctl_peer_proxied_requests_total{server="` + s + `",resource="storageversionmigrations",code="200"})`)
		if len(got) != 1 || got[0].Value == 0 {
			t.Errorf("%s's proxied requests not counted: %v (the exporter's RBAC does not let it read /metrics?)", s, got)
		}
	}
	rss := func(expr string) float64 {
		s := query(expr)
		if len(s) != 1 {
			return 0
		}
		return s[0].Value / (1 << 20)
	}
	window := strconv.Itoa(int(time.Since(readyAt).Seconds())+1) + "s"
	t.Logf("exporter RSS over %s: min %.1f MiB, max %.1f MiB, last %.1f MiB; /metrics %s", window,
		rss(`min_over_time(process_resident_memory_bytes{job="mvpctl-exporter"}[`+window+`])`),
		rss(`max_over_time(process_resident_memory_bytes{job="mvpctl-exporter"}[`+window+`])`),
		rss(`process_resident_memory_bytes{job="mvpctl-exporter"}`), metricsSize(t, addr))
	if err := exporter.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = exporter.Wait()
	stderr, _ := os.ReadFile(stderrF.Name())
	t.Logf("exporter stderr:\n%s", stderr)
	if !strings.Contains(string(stderr), "[watch] in-cluster: https://"+net.JoinHostPort(lbHost, lbPort)+", service account of "+saDir) {
		t.Errorf("the exporter did not say it read in-cluster")
	}
	if refused(string(stderr)) {
		t.Error("the exporter was refused something (403, forbidden): deploy/exporter/rbac.yaml grants too little")
	}
}

// metricsSize is the size of the exporter's /metrics, and its number of mvpctl series.
func metricsSize(t *testing.T, addr string) string {
	r, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return err.Error()
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "mvpctl_") {
			n++
		}
	}
	return fmt.Sprintf("%d bytes, %d mvpctl series", len(b), n)
}

// freeLocalAddr is a loopback address nothing listens on (yet).
func freeLocalAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
