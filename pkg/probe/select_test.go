package probe

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/internal/apimetrics"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/mvpctl/mvpctl/test/fake/proxycluster"
)

func res(group, version, resource, kind string, namespaced bool, verbs ...string) snapshot.Resource {
	if len(verbs) == 0 {
		verbs = []string{"create", "delete", "get", "list", "patch", "update", "watch"}
	}
	return snapshot.Resource{Group: group, Version: version, Resource: resource, Kind: kind, Namespaced: namespaced, Verbs: verbs, Source: snapshot.SourceBuiltin}
}

// skewSnapshot: a serves batch and apps; b lacks batch and apps/v1 deployments; c is down, and
// b's peer-aggregated discovery lists example.com/v1 widgets that only c serves. a and b have
// the proxy configured (gate and filter recorded).
func skewSnapshot() *snapshot.Snapshot {
	configured := snapshot.PeerProxy{GateEnabled: snapshot.Ptr(true), FilterInstalled: snapshot.Ptr(true)}
	core := []snapshot.Resource{
		res("", "v1", "configmaps", "ConfigMap", true),
		res("", "v1", "namespaces", "Namespace", false),
		res("", "v1", "bindings", "Binding", true, "create"),
	}
	a := snapshot.Server{Name: "a", ID: mvp.ServerID("a"), Version: "v1.36.3", Reachable: true, Endpoint: "https://127.0.0.1:1", PeerProxy: configured,
		Resources: append(append([]snapshot.Resource{}, core...),
			res("apps", "v1", "deployments", "Deployment", true), res("apps", "v1", "replicasets", "ReplicaSet", true),
			res("batch", "v1", "jobs", "Job", true), res("batch", "v1", "cronjobs", "CronJob", true),
			res("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false))}
	b := snapshot.Server{Name: "b", ID: mvp.ServerID("b"), Version: "v1.36.3", Reachable: true, Endpoint: "https://127.0.0.1:2", PeerProxy: configured,
		Resources: append(append([]snapshot.Resource{}, core...), res("apps", "v1", "replicasets", "ReplicaSet", true),
			res("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false)),
		PeerAggregated: append(nonCore(a.Resources), res("example.com", "v1", "widgets", "Widget", true))}
	c := snapshot.Server{Name: "c", ID: mvp.ServerID("c"), Version: "v1.37.1", Reachable: false, Error: "connection refused",
		IdentityLease: &snapshot.Lease{Name: mvp.ServerID("c"), HolderIdentity: "x"},
		PeerProxy:     snapshot.PeerProxy{GateEnabled: snapshot.Ptr(true), EndpointResolvable: snapshot.Ptr(true)}}
	s := snapshot.New()
	s.Servers = []snapshot.Server{a, b, c}
	return s
}

// nonCore is what a peer-aggregated /apis lists of rs: /api is never aggregated.
func nonCore(rs []snapshot.Resource) []snapshot.Resource {
	var out []snapshot.Resource
	for _, r := range rs {
		if r.Group != "" {
			out = append(out, r)
		}
	}
	return out
}

func names(ts []Target) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return strings.Join(out, " ")
}

func TestSelect(t *testing.T) {
	snap := skewSnapshot()
	for _, tc := range []struct {
		sel  Selection
		want string
	}{
		// Not served everywhere: deployments, jobs, cronjobs, widgets (peer-aggregated only);
		// one shared per group: configmaps (namespaced preferred over namespaces), replicasets,
		// clusterroles (the group's only one, cluster-scoped).
		{Selection{}, "apps/v1/deployments apps/v1/replicasets batch/v1/cronjobs batch/v1/jobs example.com/v1/widgets rbac.authorization.k8s.io/v1/clusterroles v1/configmaps"},
		{Selection{All: true}, "apps/v1/deployments apps/v1/replicasets batch/v1/cronjobs batch/v1/jobs example.com/v1/widgets rbac.authorization.k8s.io/v1/clusterroles v1/bindings v1/configmaps v1/namespaces"},
		{Selection{Groups: []string{"batch"}}, "batch/v1/cronjobs batch/v1/jobs"},
		{Selection{Groups: []string{"core"}}, "v1/bindings v1/configmaps v1/namespaces"},
		{Selection{Groups: []string{""}}, "v1/bindings v1/configmaps v1/namespaces"},
		{Selection{Resources: []string{"jobs"}}, "batch/v1/jobs"},
		{Selection{Resources: []string{"jobs.batch", "deployments.apps"}}, "apps/v1/deployments batch/v1/jobs"},
		{Selection{Resources: []string{"batch/v1/cronjobs", "v1/namespaces"}}, "batch/v1/cronjobs v1/namespaces"},
		{Selection{Resources: []string{"ConfigMap"}}, "v1/configmaps"},
		{Selection{Resources: []string{"replicasets"}, Groups: []string{"apps"}}, "apps/v1/replicasets"},
	} {
		got, err := Select(snap, tc.sel)
		if err != nil {
			t.Errorf("%s: %v", tc.sel, err)
			continue
		}
		if names(got) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.sel, names(got), tc.want)
		}
	}
	if _, err := Select(snap, Selection{Resources: []string{"jobs"}, Groups: []string{"apps"}}); err == nil || !strings.Contains(err.Error(), "no group/version/resource matches resource jobs; group apps") {
		t.Errorf("err %v", err)
	}
	got, _ := Select(snap, Selection{})
	for _, tg := range got {
		if tg.Name == "example.com/v1/widgets" && (len(tg.ServedBy) != 0 || tg.Why != WhyNotEverywhere) {
			t.Errorf("widgets %+v", tg)
		}
		if tg.Name == "batch/v1/jobs" && (strings.Join(tg.ServedBy, ",") != "a" || tg.Kind != "Job" || !tg.Namespaced) {
			t.Errorf("jobs %+v", tg)
		}
	}
}

func TestVerbsAndRequests(t *testing.T) {
	jobs := Target{GVR: snapshot.GVR{Group: "batch", Version: "v1", Resource: "jobs"}, Kind: "Job", Namespaced: true, Verbs: []string{"create", "get", "list", "watch"}}
	ns := Target{GVR: snapshot.GVR{Version: "v1", Resource: "namespaces"}, Kind: "Namespace", Verbs: []string{"get", "list"}}
	bindings := Target{GVR: snapshot.GVR{Version: "v1", Resource: "bindings"}, Kind: "Binding", Namespaced: true, Verbs: []string{"create"}}
	if got := fmt.Sprint(verbsFor(jobs, false), verbsFor(jobs, true), verbsFor(ns, true), verbsFor(bindings, false), verbsFor(bindings, true)); got != "[list get watch] [list get watch create] [list get] [] [create]" {
		t.Errorf("verbs %s", got)
	}
	if w := whyNoVerbs(bindings, false); !strings.Contains(w, "--write-dry-run would send a create with dryRun=All") {
		t.Errorf("why %q", w)
	}
	for _, tc := range []struct {
		t    Target
		verb string
		want string
	}{
		{jobs, VerbList, "GET /apis/batch/v1/namespaces/team-a/jobs?limit=1"},
		{jobs, VerbGet, "GET /apis/batch/v1/namespaces/team-a/jobs/absent"},
		{jobs, VerbWatch, "GET /apis/batch/v1/namespaces/team-a/jobs?allowWatchBookmarks=false&timeoutSeconds=1&watch=1"},
		{jobs, VerbCreate, `POST /apis/batch/v1/namespaces/team-a/jobs?dryRun=All {"apiVersion":"batch/v1","kind":"Job","metadata":{"labels":{"app.kubernetes.io/managed-by":"mvpctl-probe"},"name":"absent","namespace":"team-a"}}`},
		{ns, VerbList, "GET /api/v1/namespaces?limit=1"},
		{ns, VerbGet, "GET /api/v1/namespaces/absent"},
	} {
		r := buildRequest(tc.t, tc.verb, "team-a", "absent")
		got := r.method + " " + r.path
		if r.body != nil {
			got += " " + string(r.body)
		}
		if got != tc.want {
			t.Errorf("%s %s:\n got %s\nwant %s", tc.t.GVR, tc.verb, got, tc.want)
		}
		// Every request parses as the resource request it is meant to be.
		rq, err := route.ParseRequest(r.method, r.path)
		if err != nil || rq.Info.Verb != tc.verb || rq.Info.GVR() != tc.t.GVR {
			t.Errorf("%s: parsed %+v, %v", got, rq.Info, err)
		}
	}
}

// TestPredictExpect: what a prediction lets a client observe.
func TestPredictExpect(t *testing.T) {
	snap := skewSnapshot()
	// A 1.34 server d routing on b's peer-aggregated view: proxied to b, which answers 404 ...
	d := snapshot.Server{Name: "d", ID: mvp.ServerID("d"), Version: "v1.34.4", Reachable: true, Endpoint: "https://127.0.0.1:4",
		PeerProxy: snapshot.PeerProxy{GateEnabled: snapshot.Ptr(true), FilterInstalled: snapshot.Ptr(true)},
		Resources: []snapshot.Resource{res("", "v1", "configmaps", "ConfigMap", true)}}
	snap.Servers = append(snap.Servers, d)
	r := route.NewRouter(snap)
	target := func(g, v, rs string) Target {
		return Target{GVR: snapshot.GVR{Group: g, Version: v, Resource: rs}, Namespaced: true, Verbs: []string{"list"}}
	}
	for _, tc := range []struct {
		server string
		t      Target
		text   string
		expect string
	}{
		{"a", target("batch", "v1", "jobs"), "local", "local"},
		{"b", target("batch", "v1", "jobs"), "proxy→a", "proxied"},
		{"b", target("example.com", "v1", "widgets"), "503 (transport)", "unavailable/transport"},
		// ... or to c, inferred to serve it, which is down (its endpoint lease lives).
		{"d", target("example.com", "v1", "widgets"), "proxy→b (404)*", "not-found,unavailable/transport"},
		{"d", target("nosuch.example.com", "v1", "things"), "404", "not-found"},
	} {
		p, err := predict(r, snap, tc.server, tc.t, buildRequest(tc.t, VerbList, "default", "x"))
		if err != nil {
			t.Fatal(err)
		}
		if p.Text != tc.text || strings.Join(p.Expect, ",") != tc.expect {
			t.Errorf("%s on %s: %s %v (%s), want %s %s", tc.t.GVR, tc.server, p.Text, p.Expect, p.Reason, tc.text, tc.expect)
		}
	}
}

func TestObserve(t *testing.T) {
	snap := skewSnapshot()
	b := snap.Find("b")
	cl := func(class Class, code int) Classification {
		return Classification{Class: class, StatusCode: code, Why: "test"}
	}
	proxied := Prediction{Outcome: mvp.Proxied, Text: "proxy→a", Expect: []string{"proxied"}, Reason: "proxied to a"}
	for _, tc := range []struct {
		name          string
		gvr           snapshot.GVR
		pred          Prediction
		normal, local Classification
		verdict       Verdict
		text          string
		aggregated    bool
	}{
		{"proxied", jobsGVR, proxied, cl(ClassServed, 200), cl(ClassUnknownResource, 404), VerdictMatch, "proxied", false},
		{"not proxied", jobsGVR, proxied, cl(ClassUnknownResource, 404), cl(ClassUnknownResource, 404), VerdictMismatch, "404", false},
		{"transport instead", jobsGVR, proxied, cl(ClassUnavailableTransport, 503), cl(ClassUnknownResource, 404), VerdictMismatch, "503 (transport)", false},
		{"loop", jobsGVR, proxied, cl(ClassServed, 200), cl(ClassServed, 200), VerdictLoopViolation, "proxied", false},
		{"loop 503", jobsGVR, proxied, cl(ClassUnavailableEndpoint, 503), cl(ClassUnavailableEndpoint, 503), VerdictLoopViolation, "503 (endpoint-resolution)", false},
		{"denied", jobsGVR, proxied, cl(ClassDenied, 403), cl(ClassDenied, 403), VerdictInconclusive, "denied (403)", false},
		{"throttled", jobsGVR, proxied, cl(ClassError, 429), cl(ClassError, 429), VerdictInconclusive, "error (429)", false},
		{"local served", snapshot.GVR{Version: "v1", Resource: "configmaps"}, Prediction{Outcome: mvp.Local, Text: "local", Expect: []string{"local"}}, cl(ClassServed, 200), cl(ClassServed, 200), VerdictMatch, "local", false},
		// An aggregated API whose backend is down: the same 503 both ways, served locally.
		{"local 503", snapshot.GVR{Version: "v1", Resource: "configmaps"}, Prediction{Outcome: mvp.Local, Text: "local", Expect: []string{"local"}}, cl(ClassUnavailableTransport, 503), cl(ClassUnavailableTransport, 503), VerdictMatch, "local", false},
		// An aggregated APIService's group/version (docs/behaviour.md §16): the server's own
		// aggregator answers, whatever b's discovery says; never a loop violation.
		{"aggregator unavailable as predicted", metricsPods, aggUnavailable, cl(ClassAggregatorUnavailable, 503), cl(ClassAggregatorUnavailable, 503), VerdictMatch, "local 503 (APIService unavailable)", true},
		{"aggregator dial error, predicted available", metricsPods, aggAvailable, cl(ClassUnavailableTransport, 503), cl(ClassUnavailableTransport, 503), VerdictMatch, "local 503 (backend unreachable)", true},
		{"aggregator turned unavailable between the two", metricsPods, aggAvailable, cl(ClassAggregatorUnavailable, 503), cl(ClassUnavailableTransport, 503), VerdictMatch, "local 503 (APIService unavailable)", true},
		{"backend up, predicted available", metricsPods, aggAvailable, cl(ClassServed, 200), cl(ClassServed, 200), VerdictMatch, "local", true},
		{"backend answers though predicted unavailable", metricsPods, aggUnavailable, cl(ClassServed, 200), cl(ClassServed, 200), VerdictMismatch, "local", true},
		{"a 404 is a mismatch", metricsPods, aggUnavailable, cl(ClassUnknownResource, 404), cl(ClassUnknownResource, 404), VerdictMismatch, "404", true},
		// The backend's own errors, passed through unchanged by an Available APIService's
		// aggregator (seen on v1.36.3 and v1.37.1): local, not inconclusive, not the peer proxy's.
		{"backend 500 passed through", metricsPods, aggAvailable, cl(ClassError, 500), cl(ClassError, 500), VerdictMatch, "local", true},
		{"backend 503 Status passed through", metricsPods, aggAvailable, cl(ClassError, 503), cl(ClassError, 503), VerdictMatch, "local", true},
		{"backend 500 though predicted unavailable", metricsPods, aggUnavailable, cl(ClassError, 500), cl(ClassError, 500), VerdictMismatch, "local", true},
		{"throttled before the aggregator", metricsPods, aggAvailable, cl(ClassError, 429), cl(ClassError, 429), VerdictInconclusive, "error (429)", true},
		{"a 500 of a group/version not aggregated stays inconclusive", jobsGVR, proxied, cl(ClassError, 500), cl(ClassError, 500), VerdictInconclusive, "error (500)", false},
	} {
		r := Result{Server: "b", GVR: tc.gvr, Name: tc.gvr.String(), Predicted: tc.pred}
		observe(&r, b, ForcedLocalHeader, tc.aggregated, tc.normal, tc.local)
		if r.Verdict != tc.verdict || r.Observed.Text != tc.text {
			t.Errorf("%s: %s %q (%s; %s), want %s %q", tc.name, r.Verdict, r.Observed.Text, r.Observed.Why, r.Note, tc.verdict, tc.text)
		}
	}
}

var jobsGVR = snapshot.GVR{Group: "batch", Version: "v1", Resource: "jobs"}

// metricsPods and the two predictions route makes for an aggregated APIService's resource.
var (
	metricsPods    = snapshot.GVR{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "pods"}
	aggUnavailable = Prediction{Outcome: mvp.Unavailable, Unavailable: mvp.APIServiceUnavailable, Text: "local 503 (APIService unavailable)",
		Expect: []string{"unavailable/apiservice-unavailable"}}
	aggAvailable = Prediction{Outcome: mvp.Local, Text: "local*", Expect: []string{"local", "unavailable/apiservice-unavailable", "unavailable/backend-unreachable"}}
)

func TestParseMetrics(t *testing.T) {
	text := `# HELP apiserver_rerouted_request_total [ALPHA] Total number of requests that were proxied to a peer kube apiserver because the local apiserver was not capable of serving it
# TYPE apiserver_rerouted_request_total counter
apiserver_rerouted_request_total{code="200",group="batch",resource="jobs",version="v1"} 4
apiserver_rerouted_request_total{code="200",group="",resource="",version=""} 7
apiserver_rerouted_request_total{code="404",group="batch",resource="jobs",version="v1"} 2 1700000000000
apiserver_rerouted_request_total_extra{code="1"} 99
apiserver_peer_proxy_errors_total{group="batch",resource="jobs",type="endpoint_resolution",version="v1"} 3
odd_metric{label="a \"quoted\" \\ value"} 1
`
	m, err := parseMetrics(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.rerouted) != 3 || len(m.errors) != 1 {
		t.Fatalf("rerouted %v errors %v", m.rerouted, m.errors)
	}
	before, _ := parseMetrics(strings.NewReader(`apiserver_rerouted_request_total{code="200",group="batch",resource="jobs",version="v1"} 1` + "\n"))
	ev := evidence(before, m)
	if ev.ReroutedTotal != 5 || ev.PeerProxyErrorsTotal != 3 || ev.CodesText() != "200:3,404:2" {
		t.Errorf("evidence %+v codes %s", ev, ev.CodesText())
	}
	if d := ev.Rerouted[0]; d.Labels["code"] != "200" || d.Labels["group"] != "" || d.Delta != 7 {
		t.Errorf("first delta %+v (sorted by labels: the discovery fetches' series first)", d)
	}
	// Before 1.36: a code label only; everything counts.
	old, _ := parseMetrics(strings.NewReader(`apiserver_rerouted_request_total{code="200"} 3` + "\n" + `apiserver_rerouted_request_total{code="503"} 1` + "\n"))
	if ev := evidence(&metricsSample{rerouted: apimetrics.Series{}, errors: apimetrics.Series{}}, old); ev.ReroutedTotal != 4 || ev.CodesText() != "200:3,503:1" {
		t.Errorf("old evidence %+v", ev)
	}
}

// TestProbetestBodies: the fake servers answer with the bodies captured from real servers.
func TestProbetestBodies(t *testing.T) {
	body := func(name string) string { return loadCapture(t, name).Body }
	for _, tc := range []struct{ capture, fake string }{
		{"v1.36.3-b-list-jobs-forced-local", proxycluster.BodyTextNotFound},
		{"v1.36.3-a-unknown-resource", proxycluster.BodyUnknownResource},
		{"v1.36.3-b-list-jobs-peer-endpoint-expired", proxycluster.BodyEndpointResolution},
		{"v1.36.3-b-list-jobs-peer-killed", fmt.Sprintf(proxycluster.BodyTransportFormat, "127.0.0.1:44475")},
		{"v1.36.3-a-missing-job", fmt.Sprintf(proxycluster.BodyMissingObjectFormat, "nope", "batch", "jobs")},
		{"v1.36.3-b-list-jobs-unprivileged", fmt.Sprintf(proxycluster.BodyForbiddenFormat, "e2e-nobody", "list", "jobs", "batch")},
	} {
		got := body(tc.capture)
		if strings.Contains(tc.capture, "unprivileged") {
			got = strings.Replace(got, ` in the namespace \"default\"`, "", 1)
		}
		if got != tc.fake {
			t.Errorf("%s:\ncapture %q\n   fake %q", tc.capture, got, tc.fake)
		}
	}
	if _, err := os.Stat(filepath.Join("testdata", "README.md")); err != nil {
		t.Error(err)
	}
}

// TestSelectAggregated: probe never omits an aggregated APIService's group/version because
// discovery marks it Stale: the resources discovery last listed are selected, or the
// group/version's own path when the backend never listed any; with --group too.
func TestSelectAggregated(t *testing.T) {
	for _, tc := range []struct {
		name      string
		resources []string
		sel       Selection
		want      []string
	}{
		{"stale, last listed pods and nodes", []string{"nodes", "pods"}, Selection{}, []string{"metrics.k8s.io/v1beta1/nodes", "metrics.k8s.io/v1beta1/pods"}},
		{"never listed anything", nil, Selection{}, []string{"metrics.k8s.io/v1beta1"}},
		{"--group", []string{"pods"}, Selection{Groups: []string{"metrics.k8s.io"}}, []string{"metrics.k8s.io/v1beta1/pods"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap := skewSnapshot()
			snap.Cluster.APIServices = []snapshot.APIService{{Name: "v1beta1.metrics.k8s.io", Group: "metrics.k8s.io", Version: "v1beta1",
				Service:   &snapshot.ServiceReference{Namespace: "kube-system", Name: "metrics-server", Port: 443},
				Available: &snapshot.APIServiceCondition{Status: "False", Reason: "FailedDiscoveryCheck"}, Resources: tc.resources}}
			targets, err := Select(snap, tc.sel)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tg := range targets {
				if tg.GVR.Group == "metrics.k8s.io" {
					got = append(got, tg.Name)
					if len(tc.sel.Groups) == 0 && tg.Why != WhyAggregated {
						t.Errorf("%s selected because %q", tg.Name, tg.Why)
					}
					if p := collectionPath(tg, "default"); !strings.HasPrefix(p, "/apis/metrics.k8s.io/v1beta1") || strings.HasSuffix(p, "/") {
						t.Errorf("%s: path %q", tg.Name, p)
					}
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("selected %v, want %v", got, tc.want)
			}
		})
	}
}

// TestObserveBackendNote: a backend's error passed through says to look at the backend.
func TestObserveBackendNote(t *testing.T) {
	r := Result{Server: "b", GVR: metricsPods, Name: metricsPods.String(), Predicted: aggAvailable}
	e := Classification{Class: ClassError, StatusCode: 500, Why: "test"}
	observe(&r, skewSnapshot().Find("b"), ForcedLocalHeader, true, e, e)
	if !strings.Contains(r.Note, "backend answered 500 itself") || !strings.Contains(r.Observed.Why, "passed it through unchanged") {
		t.Errorf("note %q, why %q: want them to name the backend's own 500", r.Note, r.Observed.Why)
	}
}
