package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/probe"
	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestDiscEraSkew checks the subtlest cross-version rule mvpctl models (docs/behaviour.md §4.2): a 1.34
// server asks its peers for discovery without profile=nopeer, so a 1.36 peer answers with its
// peer-aggregated /apis — listing GVRs it only knows from other servers. The 1.34 server then
// proxies requests for such a GVR at random either to a peer that serves it (200) or to the
// 1.36 peer that only advertises it, which serves the request locally (it carries the
// loop-prevention header) and answers 404.
//
// kas-a v1.36.3 serves batch/v1, kas-b v1.36.3 and kas-c v1.34.4 do not. mvpctl must predict
// "proxied" on kas-c with candidates kas-a (served) and kas-b (404 from the peer); the real
// kas-c must answer both 200s and 404s, proxied (its rerouted metric counts code 404).
func TestDiscEraSkew(t *testing.T) {
	harness.SkipIfUnsupported(t)
	if testing.Short() {
		t.Skip("-short: skipping the v1.34/v1.36 control plane")
	}
	t0 := time.Now()
	cp := startWith134(t, "kas-c",
		harness.ServerSpec{Name: "kas-a", Version: harness.V1_36, ExtraFlags: []string{"--runtime-config=api/all=true"}},
		harness.ServerSpec{Name: "kas-b", Version: harness.V1_36, ExtraFlags: []string{"--runtime-config=api/all=true,batch/v1=false"}},
		harness.ServerSpec{Name: "kas-c", Version: harness.V1_34, ExtraFlags: []string{"--runtime-config=batch/v1=false"}},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	t.Logf("control plane v1.36.3 ×2 + v1.34.4 ready in %s", time.Since(t0).Round(time.Millisecond))

	snapPath := t.TempDir() + "/disc.json"
	mvpctlSnapshot(t, snapPath, []int{0}, "--kubeconfig", cp.Kubeconfig)
	jobs := "/apis/batch/v1/namespaces/default/jobs"
	r := runMvpctl(t, "explain", "--snapshot", snapPath, "--apiserver", "kas-c", "-o", "json", "GET", jobs)
	var e struct {
		Servers []struct {
			Era        string `json:"era"`
			Outcome    string `json:"outcome"`
			Candidates []struct {
				Server string `json:"server"`
				Result string `json:"result"`
			} `json:"candidates"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(r.Stdout, &e); err != nil || r.Exit != 0 || len(e.Servers) != 1 {
		t.Fatalf("%s (%v)", r, err)
	}
	d := e.Servers[0]
	results := map[string]string{}
	for _, c := range d.Candidates {
		results[c.Server] = c.Result
	}
	t.Logf("mvpctl on kas-c (%s): %s, candidates %v", d.Era, d.Outcome, results)
	if d.Era != "DISC" || d.Outcome != "proxied" || !strings.Contains(results["kas-a"], "serves it") || !strings.Contains(results["kas-b"], "404 from the peer") {
		t.Fatalf("prediction: era %s outcome %s candidates %v; want DISC, proxied, kas-a serving and kas-b answering 404", d.Era, d.Outcome, results)
	}

	before := rerouted404(t, ctx, cp.Server("kas-c"))
	codes := map[int]int{}
	for i := 0; i < 16; i++ {
		resp, err := cp.Server("kas-c").Get(ctx, jobs+"?limit=1", "Accept", "application/json")
		if err != nil {
			t.Fatal(err)
		}
		codes[resp.StatusCode]++
	}
	forced, err := cp.Server("kas-c").Do(ctx, http.MethodGet, jobs, http.Header{probe.ForcedLocalHeader: {probe.ForcedLocalValue}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	after := rerouted404(t, ctx, cp.Server("kas-c"))
	t.Logf("kas-c answered %v to 16 job lists (forced local: %d); rerouted{code=404} %v → %v", codes, forced.StatusCode, before, after)
	if codes[200] == 0 || codes[404] == 0 || codes[200]+codes[404] != 16 {
		t.Errorf("want both 200 (proxied to kas-a) and 404 (proxied to kas-b), got %v", codes)
	}
	if forced.StatusCode != 404 {
		t.Errorf("forced local: %d, want 404 (kas-c does not serve batch/v1)", forced.StatusCode)
	}
	if after-before != float64(codes[404]) {
		t.Errorf("rerouted 404s grew by %v, want %d: the 404s must be proxied ones", after-before, codes[404])
	}
}

// startWith134 starts a control plane like harness.Start, for one in which server old runs
// 1.33/1.34: such a server drops a peer whose endpoint lease is not there yet after 5 quick
// retries and does not look again until the next lease event (docs/behaviour.md §11.3), so it
// is restarted once its peers are ready and have written their endpoint leases; then every
// server must see its peers.
func startWith134(t *testing.T, old string, specs ...harness.ServerSpec) *harness.ControlPlane {
	return startWithOld(t, []string{old}, specs...)
}

// startWithOld is startWith134 for several 1.33/1.34 servers, restarted in turn: each learns
// every peer at its start. A 1.34 restart is no lease event (the lease keeps its holder, §11.4),
// so what a server learned of the ones restarted after it stays: the same server, same APIs.
func startWithOld(t *testing.T, olds []string, specs ...harness.ServerSpec) *harness.ControlPlane {
	t.Helper()
	harness.SkipIfUnsupported(t)
	cp, err := harness.NewControlPlane(harness.Config{Logf: t.Logf, Servers: specs})
	if cp != nil {
		t.Cleanup(func() {
			if t.Failed() {
				cp.DumpLogs(t.Logf, 40)
			}
			cp.Close()
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, old := range olds {
		if err := cp.Restart(ctx, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := cp.WaitPeers(ctx); err != nil {
		t.Fatal(err)
	}
	return cp
}

var rerouted404Line = regexp.MustCompile(`(?m)^apiserver_rerouted_request_total\{code="404"\} ([0-9.e+]+)$`)

// rerouted404 reads apiserver_rerouted_request_total{code="404"} (1.28–1.35 label it by code
// only); 0 before the first one.
func rerouted404(t *testing.T, ctx context.Context, s *harness.Server) float64 {
	t.Helper()
	resp, err := s.Get(ctx, "/metrics")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%s /metrics: %v %v", s.Name, resp, err)
	}
	m := rerouted404Line.FindSubmatch(resp.Body)
	if m == nil {
		return 0
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
