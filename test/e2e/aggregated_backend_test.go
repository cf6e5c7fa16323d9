package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// TestAggregatedBackendErrors: aggregated APIServices whose backend answers with errors or
// slowly (docs/behaviour.md §16, "Backends that answer with errors or slowly"), each its own
// group/version behind an ExternalName `localhost` Service pointing at an errBackend in this
// process, all on one real v1.36.3 + v1.37.1 control plane:
//
//   - resources answered 500 / 503 (a Status, as a generic apiserver writes it), discovery 200:
//     the APIService is Available=True and every server passes the backend's answer through
//     unchanged (local, in the routing sense);
//   - discovery answered 500 / 503: Available=False FailedDiscoveryCheck ("bad status from …"),
//     then the aggregator's own 503 "service unavailable";
//   - discovery answered after 8 s (the availability check gives up after 5 s): the same, with
//     the check's timeout as the message;
//   - resources answered after 3 s: Available=True, the backend's 200 after 3 s.
//
// Each case is observed on every server with and without the loop-prevention header (the
// answer compared byte for byte with the backend's own), predicted by `mvpctl routes` and
// `mvpctl explain` from a live snapshot and measured by `mvpctl probe --group`, cell for cell.
func TestAggregatedBackendErrors(t *testing.T) {
	harness.SkipIfUnsupported(t)
	cp := harness.Start(t, harness.ServerSpec{Name: "kas-136", Version: harness.V1_36}, harness.ServerSpec{Name: "kas-137", Version: harness.V1_37})
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cases := []backendCase{
		{name: "resources 500", b: &errBackend{group: "res500.e2e.mvpctl.io", resourceStatus: 500}, available: "True", reason: "Passed", answer: "backend",
			explainHas: "the backend's own"},
		{name: "resources 503", b: &errBackend{group: "res503.e2e.mvpctl.io", resourceStatus: 503}, available: "True", reason: "Passed", answer: "backend",
			explainHas: "the backend's own"},
		{name: "resources after 3 s", b: &errBackend{group: "slowres.e2e.mvpctl.io", resourceDelay: 3 * time.Second}, available: "True", reason: "Passed", answer: "backend",
			explainHas: "the backend's own"},
		{name: "discovery 500", b: &errBackend{group: "disc500.e2e.mvpctl.io", discoveryStatus: 500}, available: "False", reason: "FailedDiscoveryCheck", messageHas: ": 500", answer: aggUnavailable,
			explainHas: "HTTP 500"},
		{name: "discovery 503", b: &errBackend{group: "disc503.e2e.mvpctl.io", discoveryStatus: 503}, available: "False", reason: "FailedDiscoveryCheck", messageHas: ": 503", answer: aggUnavailable,
			explainHas: "HTTP 503"},
		{name: "discovery after 8 s", b: &errBackend{group: "slowdisc.e2e.mvpctl.io", discoveryDelay: 8 * time.Second}, available: "False", reason: "FailedDiscoveryCheck", failure: mvp.CheckTimeout, answer: aggUnavailable,
			explainHas: "5 s"},
	}
	for i := range cases {
		c := &cases[i]
		c.b.version = "v1"
		c.b.start()
		defer c.b.close()
		name, err := cp.RegisterAPIService(ctx, c.b.group, "v1", harness.APIServiceTarget{Service: "e2e-" + strings.Split(c.b.group, ".")[0], Port: c.b.port, ExternalName: "localhost"})
		if err != nil {
			t.Fatal(err)
		}
		c.apiService, c.registered = name, time.Now()
	}
	conds, err := waitConditions(ctx, cp, cases, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for i := range cases {
		c, cond := &cases[i], conds[i]
		t.Logf("%s: %s → %v, first seen registration + %s", c.name, c.apiService, cond, cond.seen.Round(100*time.Millisecond))
		if cond.Reason != c.reason || !strings.Contains(cond.Message, c.messageHas) {
			t.Errorf("%s: want Available=%s %s (%q), got %v", c.name, c.available, c.reason, c.messageHas, cond)
		}
		if f, _ := mvp.DiscoveryCheckFailureOf(cond.Message); c.failure != "" && f != c.failure {
			t.Errorf("%s: mvpctl reads the condition's message as %q, want %q: %s", c.name, f, c.failure, cond.Message)
		}
	}

	// Every server's aggregator must have seen the condition before its answers are judged.
	before := map[string]float64{}
	for _, s := range cp.Servers() {
		before[s.Name] = rerouted(ctx, t, s)
	}
	obs := observeBackends(ctx, t, cp, cases)
	for end := time.Now().Add(30 * time.Second); badBackendObs(obs) > 0 && time.Now().Before(end); time.Sleep(time.Second) {
		obs = observeBackends(ctx, t, cp, cases)
	}
	for _, s := range cp.Servers() {
		if d := rerouted(ctx, t, s) - before[s.Name]; d != 0 {
			t.Errorf("%s: apiserver_rerouted_request_total grew by %g: a request for an APIService's group/version was peer-proxied", s.Name, d)
		}
	}
	logBackendObs(t, obs)
	for _, o := range obs {
		if o.problem != "" {
			t.Errorf("%s: %s %s: %s", o.c.name, o.server, o.request(), o.problem)
		}
	}

	// Aggregated discovery (after the observation, which outlasts the discovery manager's 5 s
	// fetch of a slow backend's /apis): Current while Available, Stale otherwise.
	for i := range cases {
		c := &cases[i]
		fresh := ""
		if c.available != "True" {
			fresh = "Stale"
		}
		checkDiscovery(t, ctx, cp, c.name, c.b.group, "v1", fresh)
	}

	tb := &aggTable{}
	defer func() { t.Logf("predicted (routes, explain) vs observed (probe), per case:\n%s", tb) }()
	for i := range cases {
		c := &cases[i]
		gv := c.b.group + "/v1"
		want, reason := aggWantBackend, ""
		if c.answer == aggUnavailable {
			want, reason = aggWantUnavailable, c.reason
		}
		checkAggMvpctl(t, cp, tb, c.name, c.apiService, gv, reason, c.paths(), want)
		checkExplainText(t, cp, c.name, "/apis/"+gv+"/namespaces/default/widgets", c.explainHas)
	}
}

// backendCase is one APIService of TestAggregatedBackendErrors and what the servers must do.
type backendCase struct {
	name string
	b    *errBackend
	// available, reason, messageHas: the Available condition wanted.
	available, reason, messageHas string
	// failure, when set, is how mvpctl must read the condition's message (its wording varies
	// from run to run: mvp.DiscoveryCheckFailureOf).
	failure mvp.DiscoveryCheckFailure
	// answer: "backend" (the backend's own answer, byte for byte) or aggUnavailable.
	answer string
	// explainHas is what `mvpctl explain` must say of the case (what to check).
	explainHas string

	apiService string
	registered time.Time
}

func (c *backendCase) paths() []string {
	gv := "/apis/" + c.b.group + "/v1"
	return []string{gv + "/widgets", gv + "/namespaces/default/widgets", gv + "/namespaces/default/widgets/absent", gv}
}

// backendObs is one server's answer to one request of a case, and the backend's own answer.
type backendObs struct {
	c            *backendCase
	server, path string
	header       bool
	took         time.Duration
	status       int
	contentType  string
	body         string
	problem      string // why the answer is not the one wanted, "" if it is
}

func (o backendObs) request() string {
	if o.header {
		return "GET " + o.path + " +hdr"
	}
	return "GET " + o.path
}

// observeBackends sends every case's paths to every server, normally and with the
// loop-prevention header, all at once (a slow backend holds each for seconds).
func observeBackends(ctx context.Context, t *testing.T, cp *harness.ControlPlane, cases []backendCase) []backendObs {
	t.Helper()
	direct := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}}} //nolint:gosec // the test's own loopback backend
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		out []backendObs
	)
	for i := range cases {
		c := &cases[i]
		for _, p := range c.paths() {
			want := directAnswer(ctx, t, direct, c, p)
			for _, s := range cp.Servers() {
				for _, hdr := range []bool{false, true} {
					wg.Add(1)
					go func() {
						defer wg.Done()
						var kv []string
						if hdr {
							kv = []string{peerProxiedHeader, "true"}
						}
						t0 := time.Now()
						r, err := s.Get(ctx, p, kv...)
						o := backendObs{c: c, server: s.Name, path: p, header: hdr, took: time.Since(t0)}
						if err != nil {
							o.problem = err.Error()
						} else {
							o.status, o.contentType, o.body = r.StatusCode, r.ContentType, string(r.Body)
							o.problem = backendProblem(c, o, r.Body, want)
						}
						mu.Lock()
						out = append(out, o)
						mu.Unlock()
					}()
				}
			}
		}
	}
	wg.Wait()
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return fmt.Sprint(a.c.name, a.server, a.path, a.header) < fmt.Sprint(b.c.name, b.server, b.path, b.header)
	})
	return out
}

// directAnswer is what the backend itself answers to path (the aggregator's user headers
// make no difference to it).
func directAnswer(ctx context.Context, t *testing.T, c *http.Client, bc *backendCase, path string) *harness.Response {
	t.Helper()
	if bc.answer != "backend" {
		return nil
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("https://127.0.0.1:%d%s", bc.b.port, path), nil)
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s: the backend itself: GET %s: %v", bc.name, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return &harness.Response{StatusCode: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Body: b}
}

func backendProblem(c *backendCase, o backendObs, body []byte, want *harness.Response) string {
	if c.answer == aggUnavailable {
		if o.status != 503 || !strings.HasPrefix(o.contentType, "text/plain") || strings.TrimSpace(o.body) != aggUnavailable {
			return fmt.Sprintf("want the aggregator's 503 text/plain %q, got %d %s %.160q", aggUnavailable, o.status, o.contentType, o.body)
		}
		return ""
	}
	if o.status != want.StatusCode || o.contentType != want.ContentType || !bytes.Equal(body, want.Body) {
		return fmt.Sprintf("want the backend's own answer %d %s %.160q, got %d %s %.160q", want.StatusCode, want.ContentType, want.Body, o.status, o.contentType, o.body)
	}
	if c.b.resourceDelay > 0 && o.path != "/apis/"+c.b.gvStr && o.took < c.b.resourceDelay {
		return fmt.Sprintf("answered after %s, before the backend's %s", o.took, c.b.resourceDelay)
	}
	return ""
}

func badBackendObs(obs []backendObs) int {
	n := 0
	for _, o := range obs {
		if o.problem != "" {
			n++
		}
	}
	return n
}

func logBackendObs(t *testing.T, obs []backendObs) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%-22s %-8s %-72s %-7s %s\n", "CASE", "SERVER", "REQUEST", "TOOK", "ANSWER")
	for _, o := range obs {
		body, _, _ := strings.Cut(strings.TrimSpace(o.body), "\n")
		fmt.Fprintf(&b, "%-22s %-8s %-72s %-7s %d %s %.140q\n", o.c.name, o.server, o.request(), o.took.Round(10*time.Millisecond), o.status, o.contentType, body)
	}
	t.Logf("what every server answered:\n%s", b.String())
}

// checkExplainText checks that `mvpctl explain` (text, from a live snapshot) says want about path.
func checkExplainText(t *testing.T, cp *harness.ControlPlane, state, path, want string) {
	t.Helper()
	r := runMvpctl(t, "explain", "--kubeconfig", cp.Kubeconfig, "GET", path)
	// the words, whatever line a pipe's wrap at 100 columns put them on
	if !strings.Contains(strings.Join(strings.Fields(string(r.Stdout)), " "), want) {
		t.Errorf("%s: explain GET %s does not say %q:\n%s", state, path, want, r.Stdout)
	}
}

// seenCondition is an APIService's condition and when it was first seen, since registration.
type seenCondition struct {
	harness.APIServiceCondition
	seen time.Duration
}

// waitConditions polls every case's APIService (every 100 ms, through the first server) until
// each has its wanted Available status and reason.
func waitConditions(ctx context.Context, cp *harness.ControlPlane, cases []backendCase, timeout time.Duration) ([]seenCondition, error) {
	out := make([]seenCondition, len(cases))
	done := 0
	for end := time.Now().Add(timeout); done < len(cases); time.Sleep(100 * time.Millisecond) {
		for i := range cases {
			c := &cases[i]
			if out[i].seen != 0 {
				continue
			}
			cond, err := cp.Servers()[0].APIServiceAvailable(ctx, c.apiService)
			out[i].APIServiceCondition = cond
			if err == nil && cond.Status == c.available && cond.Reason == c.reason {
				out[i].seen = time.Since(c.registered)
				done++
			}
		}
		if time.Now().After(end) {
			return out, fmt.Errorf("not every APIService reached its condition within %s: %+v", timeout, out)
		}
	}
	return out, nil
}
