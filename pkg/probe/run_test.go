package probe_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"

	"github.com/mvpctl/mvpctl/pkg/discover"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/probe"
	"github.com/mvpctl/mvpctl/pkg/report"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"
	pt "github.com/mvpctl/mvpctl/test/fake/proxycluster"
)

// pair is kas-a (every API) and kas-b (batch/v1 off, and apps/v1 without deployments), both
// v1.36.3 with the proxy on, as in the end-to-end smoke test.
func pair(t *testing.T, tweakB func(*pt.Server)) (*pt.Cluster, *pt.Server, *pt.Server) {
	t.Helper()
	a := &pt.Server{Name: "kas-a", Version: "v1.36.3", Core: dt.CoreGroup(), Groups: append(pt.Groups136(true),
		dt.Group("apps", dt.Ver("v1", dt.Resource("deployments", "Deployment", true, "scale", "status"), dt.Resource("replicasets", "ReplicaSet", true))))}
	a.Groups = dedupeGroups(a.Groups)
	b := &pt.Server{Name: "kas-b", Version: "v1.36.3", Core: dt.CoreGroup(), Groups: []apidiscoveryv2.APIGroupDiscovery{
		dt.Group("apiregistration.k8s.io", dt.Ver("v1", dt.Resource("apiservices", "APIService", false, "status"))),
		dt.Group("apps", dt.Ver("v1", dt.Resource("replicasets", "ReplicaSet", true))),
		dt.Group("coordination.k8s.io", dt.Ver("v1", dt.Resource("leases", "Lease", true))),
		dt.Group("apiextensions.k8s.io", dt.Ver("v1", dt.Resource("customresourcedefinitions", "CustomResourceDefinition", false, "status"))),
	}}
	if tweakB != nil {
		tweakB(b)
	}
	c := pt.Start(t, a, b)
	return c, a, b
}

// dedupeGroups keeps the last definition of each group.
func dedupeGroups(gs []apidiscoveryv2.APIGroupDiscovery) []apidiscoveryv2.APIGroupDiscovery {
	idx := map[string]int{}
	var out []apidiscoveryv2.APIGroupDiscovery
	for _, g := range gs {
		if i, ok := idx[g.Name]; ok {
			out[i] = g
			continue
		}
		idx[g.Name] = len(out)
		out = append(out, g)
	}
	return out
}

func takeSnapshot(t *testing.T, c *pt.Cluster) *snapshot.Snapshot {
	t.Helper()
	snap, err := discover.Discover(context.Background(), discover.Options{Config: c.RestConfig(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func fastOptions(c *pt.Cluster) probe.Options {
	return probe.Options{Config: c.RestConfig(), QPS: 1000, Concurrency: 8, RequestTimeout: 5 * time.Second, AbsentName: "mvpctl-probe-absent-test"}
}

func run(t *testing.T, snap *snapshot.Snapshot, o probe.Options) *probe.Report {
	t.Helper()
	rep, err := probe.Run(context.Background(), snap, o)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// results returns the results for server and GVR name.
func results(rep *probe.Report, server, name string) []probe.Result {
	var out []probe.Result
	for _, r := range rep.Results {
		if r.Server == server && r.Name == name {
			out = append(out, r)
		}
	}
	return out
}

func serverReport(rep *probe.Report, name string) *probe.ServerReport {
	for i := range rep.Servers {
		if rep.Servers[i].Name == name {
			return &rep.Servers[i]
		}
	}
	return nil
}

func dump(t *testing.T, rep *probe.Report) {
	t.Helper()
	for _, r := range rep.Results {
		t.Logf("%s %s %s: predicted %s %v, observed %s (%s) -> %s %s", r.Server, r.Name, r.Verb, r.Predicted.Text, r.Predicted.Expect, r.Observed.Text, r.Observed.Why+r.Observed.Error, r.Verdict, r.Note)
	}
}

// TestHealthyPair: every observation matches; B's batch and apps/v1 deployments are proxied
// to A (shown by the plain-text 404 and the Status-404-with-empty-details when forced local),
// and B's /metrics counts exactly the probe's proxied requests.
func TestHealthyPair(t *testing.T) {
	c, _, b := pair(t, nil)
	snap := takeSnapshot(t, c)
	rep := run(t, snap, fastOptions(c))
	if rep.Findings() || rep.Partial || rep.Summary.Match != rep.Summary.Results || rep.Summary.Results == 0 {
		dump(t, rep)
		t.Fatalf("summary %+v, partial %v", rep.Summary, rep.Partial)
	}
	if rep.APIVersion != report.APIVersion || rep.Kind != probe.ReportKind {
		t.Errorf("apiVersion/kind %s/%s", rep.APIVersion, rep.Kind)
	}
	var names []string
	for _, g := range rep.GVRs {
		names = append(names, g.Name+"("+g.Why+")")
	}
	t.Logf("selected: %s", strings.Join(names, " "))
	// The fixture's APIService v1beta1.metrics.k8s.io is Available=False and no server's
	// discovery lists it: measured anyway, at its group/version's path, as each server's own
	// aggregator's 503 (docs/behaviour.md §16).
	for _, server := range []string{"kas-a", "kas-b"} {
		rs := results(rep, server, "metrics.k8s.io/v1beta1")
		if len(rs) != 1 || rs[0].Verdict != probe.VerdictMatch || rs[0].Observed.Text != "local 503 (APIService unavailable)" || rs[0].Predicted.Text != "local 503 (APIService unavailable)" {
			t.Errorf("%s metrics.k8s.io/v1beta1: %+v", server, rs)
		}
	}
	for _, name := range []string{"batch/v1/jobs", "batch/v1/cronjobs", "apps/v1/deployments"} {
		rs := results(rep, "kas-b", name)
		if len(rs) != 3 {
			t.Fatalf("%s on kas-b: %d results, want list, get, watch", name, len(rs))
		}
		for _, r := range rs {
			if r.Observed.Outcome != mvp.Proxied || r.Observed.Text != "proxy→kas-a" || r.Predicted.Text != "proxy→kas-a" {
				t.Errorf("%s %s on kas-b: predicted %s, observed %s (%s)", name, r.Verb, r.Predicted.Text, r.Observed.Text, r.Observed.Why)
			}
			wantLocal := probe.ClassUnknownResource
			if r.Observed.ForcedLocal == nil || r.Observed.ForcedLocal.Class != wantLocal || r.Observed.ForcedLocal.Status != 404 {
				t.Errorf("%s %s forced local: %+v", name, r.Verb, r.Observed.ForcedLocal)
			}
		}
		for _, r := range results(rep, "kas-a", name) {
			if r.Observed.Outcome != mvp.Local {
				t.Errorf("%s %s on kas-a: %s", name, r.Verb, r.Observed.Text)
			}
		}
	}
	// The two shapes of "I do not serve this".
	if r := results(rep, "kas-b", "batch/v1/jobs")[0]; r.Observed.ForcedLocal.ContentType != pt.ContentTypeText {
		t.Errorf("batch forced local on kas-b: %+v, want text/plain 404", r.Observed.ForcedLocal)
	}
	if r := results(rep, "kas-b", "apps/v1/deployments")[0]; r.Observed.ForcedLocal.ContentType != pt.ContentTypeJSON || r.Observed.ForcedLocal.Message != mvp.NotFoundMessage {
		t.Errorf("deployments forced local on kas-b: %+v, want a Status with empty details", r.Observed.ForcedLocal)
	}
	// The watch starts at the list's resourceVersion: no initial state is sent.
	if r := results(rep, "kas-b", "batch/v1/jobs")[2]; r.Verb != probe.VerbWatch || !strings.HasSuffix(r.Path, "&watch=1&resourceVersion=214") {
		t.Errorf("watch %s", r.Path)
	}
	// Shared GVRs are local on both, and one per group is probed.
	if len(results(rep, "kas-b", "v1/configmaps")) != 3 {
		t.Errorf("core group's shared GVR v1/configmaps not probed")
	}
	mb := serverReport(rep, "kas-b").Metrics
	if mb == nil || !mb.Read || mb.ReroutedTotal != 9 || mb.ExpectedRerouted != 9 || mb.CodesText() != "200:6,404:3" {
		t.Errorf("kas-b metrics %+v (codes %s), want 9 rerouted: 3 GVRs × (list, watch 200; get 404)", mb, mb.CodesText())
	}
	if ma := serverReport(rep, "kas-a").Metrics; ma == nil || ma.ReroutedTotal != 0 {
		t.Errorf("kas-a metrics %+v", ma)
	}
	if got := b.Rerouted(); got != 9 {
		t.Errorf("kas-b proxied %v requests, want 9", got)
	}
	for _, s := range rep.Servers {
		if !s.Probed || s.Requests == 0 {
			t.Errorf("server %+v", s)
		}
	}
	// Never a write: list, get and watch only (the fake fails the test on a create).
	for _, req := range b.Requests() {
		if !strings.HasPrefix(req, "GET ") {
			t.Errorf("kas-b got %s", req)
		}
	}
	assertNoToken(t, rep)
}

func assertNoToken(t *testing.T, rep *probe.Report) {
	t.Helper()
	data, _ := json.Marshal(rep)
	if strings.Contains(string(data), pt.Token) {
		t.Error("the report contains the bearer token")
	}
}

// TestWrongPredictionIsMismatch: a snapshot that wrongly says kas-b serves batch/v1 jobs
// predicts "local"; the server proxies: every jobs row on kas-b is a mismatch.
func TestWrongPredictionIsMismatch(t *testing.T) {
	c, _, _ := pair(t, nil)
	snap := takeSnapshot(t, c)
	b := snap.Find("kas-b")
	b.Resources = append(b.Resources, snapshot.Resource{Group: "batch", Version: "v1", Resource: "jobs", Kind: "Job", Namespaced: true,
		Verbs: dt.AllVerbs, Source: snapshot.SourceBuiltin})
	o := fastOptions(c)
	o.Selection = probe.Selection{Groups: []string{"batch"}}
	rep := run(t, snap, o)
	if !rep.Findings() || rep.Summary.Mismatch != 3 || rep.Summary.LoopViolations != 0 {
		dump(t, rep)
		t.Fatalf("summary %+v, want 3 mismatches (jobs on kas-b)", rep.Summary)
	}
	for _, r := range results(rep, "kas-b", "batch/v1/jobs") {
		if r.Verdict != probe.VerdictMismatch || r.Predicted.Outcome != mvp.Local || r.Observed.Outcome != mvp.Proxied || !strings.Contains(r.Note, "predicted local") {
			t.Errorf("%s: %s predicted %s observed %s: %s", r.Verb, r.Verdict, r.Predicted.Text, r.Observed.Text, r.Note)
		}
	}
	for _, r := range results(rep, "kas-b", "batch/v1/cronjobs") {
		if r.Verdict != probe.VerdictMatch {
			t.Errorf("cronjobs %s: %s", r.Verb, r.Verdict)
		}
	}
}

// TestKilledPeer: A crashed a moment ago (its identity lease is fresh, so its endpoint key
// is assumed alive): B answers the transport 503, as predicted; A itself cannot be probed.
func TestKilledPeer(t *testing.T) {
	c, a, b := pair(t, nil)
	a.Kill()
	snap := takeSnapshot(t, c)
	o := fastOptions(c)
	o.Selection = probe.Selection{Groups: []string{"batch"}}
	rep := run(t, snap, o)
	if rep.Findings() || !rep.Partial || rep.Summary.ServersNotProbed != 1 || rep.Summary.Match != 6 {
		dump(t, rep)
		t.Fatalf("summary %+v partial %v", rep.Summary, rep.Partial)
	}
	if s := serverReport(rep, "kas-a"); s.Probed || !strings.Contains(s.Error, "not reachable when the snapshot was taken") {
		t.Errorf("kas-a: %+v", s)
	}
	for _, r := range rep.Results {
		if r.Observed.Outcome != mvp.Unavailable || r.Observed.Unavailable != mvp.Transport || r.Observed.Text != "503 (transport)" ||
			r.Predicted.Text != "503 (transport)" || r.Observed.Normal.Status != 503 || strings.Join(r.Observed.By, ",") != "kas-a" {
			t.Errorf("%s %s: predicted %s observed %s", r.Name, r.Verb, r.Predicted.Text, r.Observed.Text)
		}
	}
	if m := serverReport(rep, "kas-b").Metrics; m.ReroutedTotal != 6 || m.CodesText() != "503:6" {
		t.Errorf("kas-b metrics %+v", m)
	}
	if b.Rerouted() != 6 {
		t.Errorf("kas-b rerouted %v", b.Rerouted())
	}
}

// TestExpiredEndpoint: A crashed long ago (its endpoint key expired, the identity lease
// lives): B answers the endpoint-resolution 503, counted in peer_proxy_errors_total.
func TestExpiredEndpoint(t *testing.T) {
	c, a, _ := pair(t, nil)
	a.Kill()
	a.ExpireEndpoint()
	snap := takeSnapshot(t, c)
	o := fastOptions(c)
	o.Selection = probe.Selection{Resources: []string{"jobs"}}
	rep := run(t, snap, o)
	if rep.Findings() || rep.Summary.Match != 3 {
		dump(t, rep)
		t.Fatalf("summary %+v", rep.Summary)
	}
	for _, r := range rep.Results {
		if r.Observed.Unavailable != mvp.EndpointResolution || r.Predicted.Unavailable != mvp.EndpointResolution {
			t.Errorf("%s %s: predicted %s observed %s", r.Name, r.Verb, r.Predicted.Text, r.Observed.Text)
		}
	}
	if m := serverReport(rep, "kas-b").Metrics; m.PeerProxyErrorsTotal != 3 || m.ExpectedEndpointErrors != 3 || m.ReroutedTotal != 0 {
		t.Errorf("kas-b metrics %+v", m)
	}
}

// TestCrashWindowEitherAnswerMatches: a snapshot taken inside the window in which a SIGKILLed
// peer's endpoint key may or may not have expired allows both 503s, and whichever the servers
// give is a match — never a mismatch (exit 3) — whichever the prediction names first.
func TestCrashWindowEitherAnswerMatches(t *testing.T) {
	for _, tc := range []struct {
		name    string
		expired bool // what the fake answers: endpoint-resolution, or transport
		into    time.Duration
		first   mvp.Unavailable503
	}{
		{"early in the window, servers still dial the dead peer", false, 2 * time.Second, mvp.Transport},
		{"early in the window, key already gone", true, 2 * time.Second, mvp.Transport},
		{"late in the window, servers still dial the dead peer", false, 15 * time.Second, mvp.EndpointResolution},
		{"late in the window, key gone", true, 15 * time.Second, mvp.EndpointResolution},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, a, _ := pair(t, nil)
			a.Kill()
			if tc.expired {
				a.ExpireEndpoint()
			}
			snap := takeSnapshot(t, c)
			dead := snap.Find("kas-a")
			dead.PeerProxy.EndpointResolvable = nil
			dead.PeerProxy.EndpointWindow = &snapshot.EndpointWindow{AliveUntil: snap.TakenAt.Add(-tc.into), GoneBy: snap.TakenAt.Add(20*time.Second - tc.into)}
			o := fastOptions(c)
			o.Selection = probe.Selection{Resources: []string{"jobs"}}
			rep := run(t, snap, o)
			if rep.Findings() || rep.Summary.Match != 3 || rep.Summary.Mismatch != 0 {
				dump(t, rep)
				t.Fatalf("summary %+v", rep.Summary)
			}
			for _, r := range rep.Results {
				if r.Predicted.Unavailable != tc.first || len(r.Predicted.Expect) != 2 {
					t.Errorf("%s %s: predicted %s %v, want %s first and both 503s allowed", r.Name, r.Verb, r.Predicted.Text, r.Predicted.Expect, tc.first)
				}
			}
		})
	}
}

// TestLoopHeaderViolation: a server that proxies requests carrying the loop-prevention header
// is reported, and its metrics confirm it.
func TestLoopHeaderViolation(t *testing.T) {
	c, _, _ := pair(t, func(b *pt.Server) { b.IgnoreLoopHeader = true })
	snap := takeSnapshot(t, c)
	o := fastOptions(c)
	o.Selection = probe.Selection{Groups: []string{"batch"}}
	rep := run(t, snap, o)
	if !rep.Findings() || rep.Summary.LoopViolations != 6 || len(rep.LoopHeaderViolations) != 6 || rep.Summary.Mismatch != 0 {
		dump(t, rep)
		t.Fatalf("summary %+v", rep.Summary)
	}
	v := rep.LoopHeaderViolations[0]
	if v.Server != "kas-b" || v.Header != "X-Kubernetes-Peer-Proxied: true" || v.Status != 200 {
		t.Errorf("violation %+v", v)
	}
	for _, r := range results(rep, "kas-b", "batch/v1/jobs") {
		if r.Verdict != probe.VerdictLoopViolation || !strings.Contains(r.Note, "confirmed by apiserver_rerouted_request_total") {
			t.Errorf("%s: %s %s", r.Verb, r.Verdict, r.Note)
		}
	}
	if m := serverReport(rep, "kas-b").Metrics; m.ReroutedTotal != 12 || m.ExpectedRerouted != 12 {
		t.Errorf("kas-b metrics: %+v (6 normal + 6 forced-local requests forwarded)", m)
	}
}

// TestProxiedHeaderOverride: with --proxied-header naming a header the server ignores, the
// "forced local" requests are proxied too: every proxied GVR is a loop-header violation.
func TestProxiedHeaderOverride(t *testing.T) {
	c, _, _ := pair(t, nil)
	snap := takeSnapshot(t, c)
	o := fastOptions(c)
	o.Selection = probe.Selection{Resources: []string{"batch/v1/jobs"}}
	o.ProxiedHeader = "X-Kubernetes-APIServer-Rerouted"
	rep := run(t, snap, o)
	if rep.Summary.LoopViolations != 3 || rep.Settings.ProxiedHeader != "X-Kubernetes-APIServer-Rerouted" {
		dump(t, rep)
		t.Fatalf("summary %+v", rep.Summary)
	}
	if _, err := probe.Run(context.Background(), snap, probe.Options{Config: c.RestConfig(), ProxiedHeader: "bad header"}); err == nil {
		t.Error("a header name with a space was accepted")
	}
}

// TestDenied: 403 on both requests says nothing about routing: inconclusive, not a mismatch.
func TestDenied(t *testing.T) {
	c, _, _ := pair(t, func(b *pt.Server) { b.DenyAll = true })
	snap := takeSnapshot(t, c)
	o := fastOptions(c)
	o.Selection = probe.Selection{Groups: []string{"batch"}}
	rep := run(t, snap, o)
	if rep.Findings() || !rep.Partial || rep.Summary.Inconclusive != 6 {
		dump(t, rep)
		t.Fatalf("summary %+v", rep.Summary)
	}
	r := results(rep, "kas-b", "batch/v1/jobs")[0]
	if r.Verdict != probe.VerdictInconclusive || r.Observed.Text != "denied (403)" || !strings.Contains(r.Note, "denied") {
		t.Errorf("%+v", r)
	}
}

// TestConnectionRefused: a server that answered the snapshot but is gone when probed.
func TestConnectionRefused(t *testing.T) {
	c, a, _ := pair(t, nil)
	snap := takeSnapshot(t, c)
	a.Kill()
	o := fastOptions(c)
	o.Selection = probe.Selection{Resources: []string{"jobs"}}
	rep := run(t, snap, o)
	s := serverReport(rep, "kas-a")
	if s.Probed || !strings.Contains(s.Error, "GET /version: connection refused") || !rep.Partial || rep.Summary.ServersNotProbed != 1 {
		t.Fatalf("kas-a %+v, summary %+v", s, rep.Summary)
	}
	// B still answers: the snapshot says A lives, B observes the transport 503: a mismatch
	// the user must see (the cluster changed since the snapshot).
	for _, r := range results(rep, "kas-b", "batch/v1/jobs") {
		if r.Verdict != probe.VerdictMismatch || r.Observed.Unavailable != mvp.Transport {
			t.Errorf("%s: %s %s", r.Verb, r.Verdict, r.Observed.Text)
		}
	}
}

// TestRequestTimeout: a server that does not answer in time: error, not a verdict on routing.
func TestRequestTimeout(t *testing.T) {
	c, _, _ := pair(t, func(b *pt.Server) { b.Slow = 3 * time.Second })
	snap := takeSnapshot(t, c)
	o := fastOptions(c)
	o.RequestTimeout = 1100 * time.Millisecond
	o.Servers = []string{"kas-b"}
	o.Selection = probe.Selection{Resources: []string{"jobs"}}
	t0 := time.Now()
	rep := run(t, snap, o)
	if d := time.Since(t0); d > 4500*time.Millisecond { // list, get, watch in turn: 3 × 1.1 s
		t.Errorf("took %s", d)
	}
	if rep.Findings() || !rep.Partial || rep.Summary.Errors != 3 || rep.Interrupted != "" {
		dump(t, rep)
		t.Fatalf("summary %+v interrupted %q", rep.Summary, rep.Interrupted)
	}
	r := rep.Results[0]
	if r.Verdict != probe.VerdictError || r.Observed.Text != "error" || !strings.Contains(r.Observed.Error, "GET /apis/batch/v1/namespaces/default/jobs?limit=1: no answer within 1.1s") {
		t.Errorf("%+v", r.Observed)
	}
}

// TestMetricsForbidden: the run goes on without metrics, with a note.
func TestMetricsForbidden(t *testing.T) {
	c, _, _ := pair(t, func(b *pt.Server) { b.MetricsForbidden = true })
	snap := takeSnapshot(t, c)
	o := fastOptions(c)
	o.Selection = probe.Selection{Resources: []string{"jobs"}}
	var warnings []string
	o.Warn = func(s string) { warnings = append(warnings, s) }
	rep := run(t, snap, o)
	m := serverReport(rep, "kas-b").Metrics
	if rep.Findings() || rep.Partial || m == nil || m.Read || !strings.Contains(m.Note, "HTTP 403: not allowed to read /metrics") {
		t.Fatalf("metrics %+v summary %+v", m, rep.Summary)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "kas-b") {
		t.Errorf("warnings %q", warnings)
	}
}

// TestWriteDryRun: creates are sent with dryRun=All only, and compared like the reads.
func TestWriteDryRun(t *testing.T) {
	c, _, b := pair(t, nil)
	snap := takeSnapshot(t, c)
	o := fastOptions(c)
	o.WriteDryRun = true
	o.Selection = probe.Selection{Groups: []string{"batch", "core"}}
	rep := run(t, snap, o)
	if rep.Findings() || rep.Partial {
		dump(t, rep)
		t.Fatalf("summary %+v", rep.Summary)
	}
	creates := 0
	for _, r := range rep.Results {
		if r.Verb == probe.VerbCreate {
			creates++
			if r.Method != "POST" || !strings.HasSuffix(r.Path, "?dryRun=All") {
				t.Errorf("create %s %s", r.Method, r.Path)
			}
		}
	}
	if creates != 2*5 { // jobs, cronjobs, configmaps, namespaces, pods on two servers
		t.Errorf("%d creates", creates)
	}
	for _, req := range b.Requests() {
		if strings.HasPrefix(req, "POST") && !strings.Contains(req, "dryRun=All") {
			t.Errorf("write without dry run: %s", req)
		}
	}
}

// TestNoFilter: a 1.36 server without --peer-ca-file never proxies: 404, as predicted.
func TestNoFilter(t *testing.T) {
	c, _, _ := pair(t, func(b *pt.Server) { b.NoFilter = true })
	snap := takeSnapshot(t, c)
	o := fastOptions(c)
	o.Selection = probe.Selection{Groups: []string{"batch"}}
	rep := run(t, snap, o)
	if rep.Findings() {
		dump(t, rep)
		t.Fatalf("summary %+v", rep.Summary)
	}
	for _, r := range results(rep, "kas-b", "batch/v1/jobs") {
		if r.Observed.Outcome != mvp.NotFound || r.Predicted.Outcome != mvp.NotFound {
			t.Errorf("%s: %s / %s", r.Verb, r.Predicted.Text, r.Observed.Text)
		}
	}
}

// TestInterrupted: cancelling stops the run cleanly; what was measured is kept.
func TestInterrupted(t *testing.T) {
	c, _, _ := pair(t, nil)
	snap := takeSnapshot(t, c)
	o := fastOptions(c)
	o.QPS = 20
	o.Concurrency = 1
	o.Selection = probe.Selection{All: true}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(400*time.Millisecond, cancel)
	t0 := time.Now()
	rep, err := probe.Run(ctx, snap, o)
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(t0) > 3*time.Second {
		t.Errorf("took %s after cancel", time.Since(t0))
	}
	if !strings.HasPrefix(rep.Interrupted, "interrupted") || !rep.Partial || rep.Summary.NotMeasured == 0 || rep.Summary.Match == 0 {
		t.Fatalf("interrupted %q, summary %+v", rep.Interrupted, rep.Summary)
	}
	if m := serverReport(rep, "kas-a").Metrics; m == nil || !m.Read {
		t.Errorf("metrics after interruption: %+v", m)
	}
	for _, r := range rep.Results {
		if r.Verdict == probe.VerdictNotMeasured && r.Observed.Text != "<not-measured>" {
			t.Errorf("%+v", r)
		}
	}
}

// TestTotalTimeout: the total bound stops the run like an interruption, saying why.
func TestTotalTimeout(t *testing.T) {
	c, _, _ := pair(t, nil)
	snap := takeSnapshot(t, c)
	o := fastOptions(c)
	o.QPS = 20
	o.TotalTimeout = 500 * time.Millisecond
	o.Selection = probe.Selection{All: true}
	rep := run(t, snap, o)
	if !strings.HasPrefix(rep.Interrupted, "total time bound (500ms) reached") || rep.Summary.NotMeasured == 0 {
		t.Fatalf("interrupted %q, summary %+v", rep.Interrupted, rep.Summary)
	}
}

// TestServersFilter: --apiserver limits the probe; an unknown name is an error.
func TestServersFilter(t *testing.T) {
	c, _, _ := pair(t, nil)
	snap := takeSnapshot(t, c)
	o := fastOptions(c)
	o.Servers = []string{"kas-b"}
	o.Selection = probe.Selection{Resources: []string{"jobs"}}
	rep := run(t, snap, o)
	if len(rep.Servers) != 1 || rep.Servers[0].Name != "kas-b" || len(rep.Results) != 3 {
		t.Errorf("servers %+v results %d", rep.Servers, len(rep.Results))
	}
	o.Servers = []string{"kas-z"}
	if _, err := probe.Run(context.Background(), snap, o); err == nil || !strings.Contains(err.Error(), `no server "kas-z"`) {
		t.Errorf("err %v", err)
	}
}

// TestOldSnapshotNote: a snapshot older than 10 minutes is pointed out.
func TestOldSnapshotNote(t *testing.T) {
	c, _, _ := pair(t, nil)
	snap := takeSnapshot(t, c)
	snap.TakenAt = snap.TakenAt.Add(-time.Hour)
	o := fastOptions(c)
	o.Selection = probe.Selection{Resources: []string{"jobs"}}
	rep := run(t, snap, o)
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "the snapshot was taken 1h0m0s ago") {
		t.Errorf("notes %q", rep.Notes)
	}
}

func TestBadOptions(t *testing.T) {
	c, _, _ := pair(t, nil)
	snap := takeSnapshot(t, c)
	for _, tc := range []struct {
		o    probe.Options
		want string
	}{
		{probe.Options{}, "no client config"},
		{probe.Options{Config: c.RestConfig(), Namespace: "Not_A_Namespace"}, `namespace "Not_A_Namespace"`},
		{probe.Options{Config: c.RestConfig(), Concurrency: -1}, "concurrency must be at least 1"},
		{probe.Options{Config: c.RestConfig(), QPS: -1}, "qps must be positive"},
		{probe.Options{Config: c.RestConfig(), RequestTimeout: time.Second}, "too short"},
		{probe.Options{Config: c.RestConfig(), Selection: probe.Selection{Resources: []string{"widgets"}}}, "no group/version/resource matches resource widgets"},
	} {
		_, err := probe.Run(context.Background(), snap, tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err %v, want %q", tc.o, err, tc.want)
		}
	}
}

func ExampleRun() {
	// snap from discover.Discover or snapshot.LoadFile; cfg from the kubeconfig.
	var snap *snapshot.Snapshot
	rep, err := probe.Run(context.Background(), snap, probe.Options{ /* Config: cfg */ })
	if err != nil {
		return
	}
	fmt.Println(rep.Summary.Mismatch)
}
