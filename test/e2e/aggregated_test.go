package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestAggregatedAPI: a real aggregated API server (metrics-server, harness.MetricsServer)
// behind `APIService v1beta1.metrics.k8s.io` on real mixed-version control planes, and what
// every kube-apiserver answers for it (docs/behaviour.md "Aggregated APIs (APIService)"):
//
//  1. backend up: 200 from metrics-server through each server's own aggregator, with and
//     without x-kubernetes-peer-proxied: true, never peer-proxied;
//  2. backend SIGKILLed: 503 from each server's own aggregator — first its proxy's dial error
//     while the APIService is still Available=True, then, once the availability controller
//     has marked it Available=False (FailedDiscoveryCheck), 503 "service unavailable";
//     /apis still lists the group/version (stale);
//  3. backend restarted on the same port: Available=True again, 200 again;
//  4. APIServices whose Service is missing, has no endpoints, or names a port where nothing
//     listens: Available=False with a reason per case, and the same 503 "service unavailable".
//
// In each state `mvpctl routes` and `mvpctl explain` (from a live snapshot) must predict what
// the servers answer, `mvpctl probe --group` must measure it as a match (never exit 3), and a
// `mvpctl watch` running throughout must report the changes (aggregated_mvpctl_test.go).
func TestAggregatedAPI(t *testing.T) {
	harness.SkipIfUnsupported(t)
	if testing.Short() {
		t.Skip("-short: skipping the SIGKILL of the aggregated API server")
	}
	for _, tc := range []struct {
		name  string
		specs []harness.ServerSpec
	}{
		{"v1.36+v1.37", []harness.ServerSpec{{Name: "kas-136", Version: harness.V1_36}, {Name: "kas-137", Version: harness.V1_37}}},
	} {
		t.Run(tc.name, func(t *testing.T) { aggregatedAPI(t, tc.specs) })
	}
}

const (
	metricsAPIService = "v1beta1.metrics.k8s.io"
	peerProxiedHeader = "X-Kubernetes-Peer-Proxied"
	// aggUnavailable is the aggregator's own answer for an APIService that is not Available
	// (kube-aggregator pkg/apiserver/handler_proxy.go proxyHandler.ServeHTTP: http.Error).
	aggUnavailable = "service unavailable"
)

var metricsPaths = []string{"/apis/metrics.k8s.io/v1beta1/pods", "/apis/metrics.k8s.io/v1beta1/nodes", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods"}

func aggregatedAPI(t *testing.T, specs []harness.ServerSpec) {
	cp := harness.Start(t, specs...)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	ms, err := cp.StartMetricsServer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if _, err := cp.RegisterAPIService(ctx, "metrics.k8s.io", "v1beta1", harness.APIServiceTarget{Service: "metrics-server", Port: ms.Port, ExternalName: "localhost"}); err != nil {
		t.Fatal(err)
	}
	cond, err := cp.WaitAPIServiceAvailable(ctx, metricsAPIService, "True", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("registered → %v after %s", cond, time.Since(t0).Round(100*time.Millisecond))
	servers := []string{}
	for _, s := range cp.Servers() {
		servers = append(servers, s.Name)
	}
	tb := &aggTable{}
	defer func() { t.Logf("predicted (routes, explain) vs observed (probe), per state:\n%s", tb) }()
	watch := startAggWatch(t, cp.Kubeconfig)
	const metricsGV = "metrics.k8s.io/v1beta1"

	// 1. Backend available. Every server's aggregator must have seen Available=True before
	// its answers are the backend's; wait for that, then observe.
	backend := func(o aggObs) bool { return o.class() == "backend" }
	unavailable := func(o aggObs) bool { return o.class() == "unavailable" }
	up, _ := waitAggAnswers(t, ctx, cp, metricsPaths, time.Now(), 30*time.Second, backend)
	logAggObs(t, "1. backend up", up)
	for _, o := range up {
		if !backend(o) {
			t.Errorf("backend up: %s: want 200 from metrics-server, got %s", o.key(), o)
		}
	}
	checkDiscovery(t, ctx, cp, "1. backend up", "metrics.k8s.io", "v1beta1", "")
	checkAggMvpctl(t, cp, tb, "1. backend up", metricsAPIService, metricsGV, "", append(metricsPaths, "/apis/"+metricsGV), aggWantBackend)

	// 2. Backend killed: at once, then until every server answers "service unavailable".
	if err := ms.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	right := observeAgg(ctx, t, cp, metricsPaths, killed)
	checkAggMvpctl(t, cp, tb, "2a. right after SIGKILL", metricsAPIService, metricsGV, "FailedDiscoveryCheck", append(metricsPaths, "/apis/"+metricsGV), aggWantDialWindow)
	t.Logf("2a: mvpctl checked by kill + %s", time.Since(killed).Round(100*time.Millisecond))
	logAggObs(t, "2a. right after SIGKILL", right)
	for _, o := range right {
		if c := o.class(); c != "dial-error" && c != "unavailable" {
			t.Errorf("right after the kill: %s: want 503 from the server's own aggregator (dial error or %q), got %s", o.key(), aggUnavailable, o)
		}
	}
	down, switched := waitAggAnswers(t, ctx, cp, metricsPaths, killed, 2*time.Minute, unavailable)
	cond, err = cp.WaitAPIServiceAvailable(ctx, metricsAPIService, "False", 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("SIGKILL → %v, lastTransitionTime kill + %s; each server's first all-%q round: kill + %v",
		cond, cond.LastTransitionTime.Sub(killed).Round(time.Second), aggUnavailable, switched)
	if cond.Reason != "FailedDiscoveryCheck" || !strings.Contains(cond.Message, "connection refused") {
		t.Errorf("backend killed: want Available=False FailedDiscoveryCheck (connection refused), got %v", cond)
	}
	// The dial-error 503 is an outcome mvpctl claims (mvp.BackendUnreachable): right after the
	// kill, while the APIService is still Available, the aggregator must have answered it —
	// unless the availability check happened to mark it unavailable within the first moments.
	dialErrors := 0
	for _, o := range right {
		if o.class() == "dial-error" {
			dialErrors++
		}
	}
	if dialErrors == 0 && cond.LastTransitionTime.Sub(killed) > 2*time.Second {
		t.Errorf("right after the kill no server answered the dial-error 503, though the APIService stayed Available until kill + %s", cond.LastTransitionTime.Sub(killed).Round(time.Second))
	}
	logAggObs(t, "2b. Available=False", down)
	for _, o := range down {
		if !unavailable(o) {
			t.Errorf("Available=False: %s: want 503 text/plain %q from the server's own aggregator, got %s", o.key(), aggUnavailable, o)
		}
	}
	checkDiscovery(t, ctx, cp, "2b. Available=False", "metrics.k8s.io", "v1beta1", "Stale")
	checkAggMvpctl(t, cp, tb, "2b. Available=False", metricsAPIService, metricsGV, "FailedDiscoveryCheck", append(metricsPaths, "/apis/"+metricsGV), aggWantUnavailable)
	aggWatchAPIService(t, watch, "apiservice-unavailable", metricsAPIService)
	aggWatchCells(t, watch, metricsGV, servers, "local", aggCellUnavailable)

	// 3. Backend back on the same port.
	if err := ms.Start(ctx); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	back, switched := waitAggAnswers(t, ctx, cp, metricsPaths, started, 2*time.Minute, backend)
	cond, err = cp.WaitAPIServiceAvailable(ctx, metricsAPIService, "True", 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("restart (live) → %v, lastTransitionTime live + %s; each server's first all-200 round: live + %v",
		cond, cond.LastTransitionTime.Sub(started).Round(time.Second), switched)
	logAggObs(t, "3. backend back", back)
	for _, o := range back {
		if !backend(o) {
			t.Errorf("backend back: %s: want 200 from metrics-server, got %s", o.key(), o)
		}
	}
	checkDiscovery(t, ctx, cp, "3. backend back", "metrics.k8s.io", "v1beta1", "")
	checkAggMvpctl(t, cp, tb, "3. backend back", metricsAPIService, metricsGV, "", append(metricsPaths, "/apis/"+metricsGV), aggWantBackend)
	aggWatchAPIService(t, watch, "apiservice-available", metricsAPIService)
	aggWatchCells(t, watch, metricsGV, servers, aggCellUnavailable, "local")

	// 4. APIServices whose backend cannot be reached at all, one per way the availability
	// controller tells them apart (kube-aggregator pkg/controllers/status/remote
	// AvailableConditionController.sync).
	closed, err := closedPort()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		group              string
		target             harness.APIServiceTarget
		reason, messageHas string
	}{
		{"noservice.e2e.mvpctl.io", harness.APIServiceTarget{Service: "e2e-absent", Port: 443, NoService: true}, "ServiceNotFound", `service/e2e-absent in "kube-system" is not present`},
		{"noendpoints.e2e.mvpctl.io", harness.APIServiceTarget{Service: "e2e-no-endpoints", Port: 443}, "EndpointsNotFound", `cannot find endpointslices for service/e2e-no-endpoints in "kube-system"`},
		{"noport.e2e.mvpctl.io", harness.APIServiceTarget{Service: "e2e-no-listener", Port: closed, ExternalName: "localhost"}, "FailedDiscoveryCheck", "connection refused"},
	} {
		name, err := cp.RegisterAPIService(ctx, c.group, "v1", c.target)
		if err != nil {
			t.Fatal(err)
		}
		at := time.Now()
		cond, err := cp.WaitAPIServiceAvailable(ctx, name, "False", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("4. %s: %v after %s", name, cond, time.Since(at).Round(100*time.Millisecond))
		if cond.Reason != c.reason || !strings.Contains(cond.Message, c.messageHas) {
			t.Errorf("%s: want Available=False %s (%q), got %v", name, c.reason, c.messageHas, cond)
		}
		paths := []string{"/apis/" + c.group + "/v1/widgets", "/apis/" + c.group + "/v1/namespaces/default/widgets"}
		obs, _ := waitAggAnswers(t, ctx, cp, paths, at, 30*time.Second, unavailable)
		logAggObs(t, "4. "+c.reason, obs)
		for _, o := range obs {
			if !unavailable(o) {
				t.Errorf("%s: %s: want 503 text/plain %q from the server's own aggregator, got %s", c.reason, o.key(), aggUnavailable, o)
			}
		}
		checkDiscovery(t, ctx, cp, "4. "+c.reason, c.group, "v1", "Stale")
		checkAggMvpctl(t, cp, tb, "4. "+c.reason, name, c.group+"/v1", c.reason, append(paths, "/apis/"+c.group+"/v1"), aggWantUnavailable)
		aggWatchAPIService(t, watch, "apiservice-unavailable", name)
	}
	watch.stop(t)
}

// aggObs is one answer of one server to one request, normal or with the loop-prevention header.
type aggObs struct {
	server, path string
	header       bool
	at           time.Duration // since the reference time (the kill, or the observation's start)
	status       int
	contentType  string
	kind         string // JSON kind of the body, if any
	reason       string // a Status body's reason
	body         string // the body's first line, at most 160 bytes
	rerouted     float64
}

func (o aggObs) key() string {
	h := ""
	if o.header {
		h = " +hdr"
	}
	return fmt.Sprintf("%s GET %s%s", o.server, o.path, h)
}

func (o aggObs) String() string {
	return fmt.Sprintf("%d %s kind=%q reason=%q %q (rerouted +%g)", o.status, o.contentType, o.kind, o.reason, o.body, o.rerouted)
}

// class sorts an answer into what the aggregator did. "backend": 200 with the backend's
// list; "unavailable": the aggregator's own 503 for an APIService not Available;
// "dial-error": 503 whose body is the aggregator's proxy error (the APIService still
// Available=True, the backend gone). An answer a peer proxied (its rerouted counter grew)
// is none of these.
func (o aggObs) class() string {
	switch {
	case o.rerouted != 0:
		return "peer-proxied"
	case o.status == 200 && strings.HasSuffix(o.kind, "MetricsList"):
		return "backend"
	case o.status == 503 && strings.HasPrefix(o.contentType, "text/plain") && o.body == aggUnavailable:
		return "unavailable"
	case o.status == 503 && strings.Contains(o.body, "connection refused"):
		return "dial-error"
	}
	return "other"
}

// observeAgg sends every path to every running server, normally and with the loop-prevention
// header, and records each answer with the growth of that server's rerouted-request counter
// across it (the peer proxy counts every request it proxies).
func observeAgg(ctx context.Context, t *testing.T, cp *harness.ControlPlane, paths []string, ref time.Time) []aggObs {
	t.Helper()
	var out []aggObs
	for _, s := range cp.Servers() {
		if !s.Running() {
			continue
		}
		for _, p := range paths {
			for _, hdr := range []bool{false, true} {
				before := rerouted(ctx, t, s)
				var kv []string
				if hdr {
					kv = []string{peerProxiedHeader, "true"}
				}
				at := time.Since(ref)
				r, err := s.Get(ctx, p, kv...)
				if err != nil {
					t.Fatalf("%s GET %s: %v", s.Name, p, err)
				}
				o := aggObs{server: s.Name, path: p, header: hdr, at: at, status: r.StatusCode, contentType: r.ContentType}
				var st struct{ Kind, Reason string }
				if json.Unmarshal(r.Body, &st) == nil {
					o.kind, o.reason = st.Kind, st.Reason
				}
				o.body, _, _ = strings.Cut(strings.TrimSpace(string(r.Body)), "\n")
				if len(o.body) > 160 {
					o.body = o.body[:160] + "…"
				}
				o.rerouted = rerouted(ctx, t, s) - before
				out = append(out, o)
			}
		}
	}
	return out
}

// waitAggAnswers observes every 500 ms until every answer satisfies ok, or timeout passes.
// It returns the last observation (which the caller checks; its times are since ref) and,
// per server, the time since ref of the first round in which all its answers satisfied ok.
func waitAggAnswers(t *testing.T, ctx context.Context, cp *harness.ControlPlane, paths []string, ref time.Time, timeout time.Duration, ok func(aggObs) bool) ([]aggObs, map[string]time.Duration) {
	t.Helper()
	first := map[string]time.Duration{}
	for {
		obs := observeAgg(ctx, t, cp, paths, ref)
		bad := map[string]bool{}
		for _, o := range obs {
			bad[o.server] = bad[o.server] || !ok(o)
		}
		for _, o := range obs {
			if _, seen := first[o.server]; !seen && !bad[o.server] {
				first[o.server] = o.at
			}
		}
		if len(first) == len(bad) || time.Since(ref) > timeout {
			return obs, first
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// rerouted is the sum of s's apiserver_rerouted_request_total series.
func rerouted(ctx context.Context, t *testing.T, s *harness.Server) float64 {
	t.Helper()
	r, err := s.Get(ctx, "/metrics")
	if err != nil || r.StatusCode != 200 {
		t.Fatalf("%s GET /metrics: %v %v", s.Name, r, err)
	}
	sum := 0.0
	sc := bufio.NewScanner(bytes.NewReader(r.Body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "apiserver_rerouted_request_total") {
			continue
		}
		if f, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64); err == nil {
			sum += f
		}
	}
	return sum
}

func logAggObs(t *testing.T, title string, obs []aggObs) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%s:\n%-70s %-8s %-12s %s\n", title, "REQUEST", "AT", "CLASS", "ANSWER")
	for _, o := range obs {
		fmt.Fprintf(&b, "%-70s %-8s %-12s %s\n", o.key(), o.at.Round(10*time.Millisecond), o.class(), o)
	}
	t.Log(b.String())
}
