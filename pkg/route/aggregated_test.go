package route

import (
	"slices"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// metricsAPIService is APIService v1beta1.metrics.k8s.io in the given Available state
// (status "" = no condition yet).
func metricsAPIService(status, reason, message string, resources ...string) snapshot.APIService {
	a := snapshot.APIService{Name: "v1beta1.metrics.k8s.io", Group: "metrics.k8s.io", Version: "v1beta1",
		Service: &snapshot.ServiceReference{Namespace: "kube-system", Name: "metrics-server", Port: 443}, Resources: resources}
	if status != "" {
		a.Available = &snapshot.APIServiceCondition{Status: status, Reason: reason, Message: message}
	}
	return a
}

// aggregatedSnap is two servers of version and the APIService; when available, both serve
// its pods (their discovery lists it Current), else neither does (Stale).
func aggregatedSnap(version string, a snapshot.APIService) *snapshot.Snapshot {
	gvrs := all
	if a.IsAvailable() {
		gvrs = append(slices.Clone(all), "metrics.k8s.io/v1beta1/pods")
	}
	s := snap(server("kas-a", version, gvrs...), server("kas-b", version, gvrs...))
	for i := range s.Servers {
		for j := range s.Servers[i].Resources {
			if s.Servers[i].Resources[j].Group == "metrics.k8s.io" {
				s.Servers[i].Resources[j].Source = snapshot.SourceAggregated
			}
		}
	}
	s.Cluster.APIServices = []snapshot.APIService{a,
		{Name: "v1.batch", Group: "batch", Version: "v1", Available: &snapshot.APIServiceCondition{Status: "True", Reason: "Local"}}}
	s.Cluster.AggregatedGroupVersions = []string{"metrics.k8s.io/v1beta1"}
	return s
}

// TestAggregatedDecisions: an aggregated APIService's group/version is answered by every
// server's own aggregator (docs/behaviour.md §16) — the backend's answer when Available, its
// own 503 "service unavailable" when not, never a 404, with or without the loop header, on
// every version, and /apis/<group>/<version> alike.
func TestAggregatedDecisions(t *testing.T) {
	failed := metricsAPIService("False", "FailedDiscoveryCheck", "failing or missing response from https://10.0.0.1:443/apis/metrics.k8s.io/v1beta1: connection refused", "pods")
	for _, tc := range []struct {
		name, version, path string
		header              bool
		a                   snapshot.APIService
		want, cell          string
		also                []string
	}{
		{"available 1.36", "v1.36.3", "/apis/metrics.k8s.io/v1beta1/pods", false, metricsAPIService("True", "Passed", "all checks passed", "pods"),
			"local", "local", []string{"unavailable/backend-unreachable", "unavailable/apiservice-unavailable"}},
		{"failed 1.36", "v1.36.3", "/apis/metrics.k8s.io/v1beta1/pods", false, failed, "unavailable/apiservice-unavailable", "local 503 (APIService unavailable)", nil},
		{"failed 1.37 with header", "v1.37.1", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods", true, failed, "unavailable/apiservice-unavailable", "local 503 (APIService unavailable)", nil},
		{"failed, a resource discovery never listed", "v1.36.3", "/apis/metrics.k8s.io/v1beta1/nodes", false, failed, "unavailable/apiservice-unavailable", "local 503 (APIService unavailable)", nil},
		{"failed, group/version discovery path", "v1.36.3", "/apis/metrics.k8s.io/v1beta1", false, failed, "unavailable/apiservice-unavailable", "local 503 (APIService unavailable)", nil},
		{"no condition yet", "v1.36.3", "/apis/metrics.k8s.io/v1beta1/pods", false, metricsAPIService("", "", ""), "unavailable/apiservice-unavailable", "local 503 (APIService unavailable)", nil},
		{"failed 1.34 (no exclusion: no peer lists it either)", "v1.34.2", "/apis/metrics.k8s.io/v1beta1/pods", false, failed, "unavailable/apiservice-unavailable", "local 503 (APIService unavailable)", nil},
		{"failed 1.30 (no StorageVersion)", "v1.30.14", "/apis/metrics.k8s.io/v1beta1/pods", false, failed, "unavailable/apiservice-unavailable", "local 503 (APIService unavailable)", nil},
		{"unrelated group stays as it was", "v1.36.3", "/apis/batch/v1/jobs", false, failed, "local", "local", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRouter(aggregatedSnap(tc.version, tc.a))
			req, err := ParseRequest("GET", tc.path)
			if err != nil {
				t.Fatal(err)
			}
			req.HeaderProxied = tc.header
			for _, server := range []string{"kas-a", "kas-b"} {
				d, err := r.Decide(server, req)
				if err != nil {
					t.Fatal(err)
				}
				if got := outcomeText(d); got != tc.want || d.Cell() != tc.cell || !slices.Equal(d.AlsoPossible, tc.also) {
					t.Errorf("%s: got %s, cell %q, also %v; want %s, %q, %v (%s)", server, got, d.Cell(), d.AlsoPossible, tc.want, tc.cell, tc.also, d.Reason)
				}
				if tc.path == "/apis/batch/v1/jobs" {
					if d.APIService != nil {
						t.Errorf("batch/v1 decided as an APIService's: %+v", d.APIService)
					}
					continue
				}
				if d.APIService == nil || d.APIService.Name != tc.a.Name || d.APIService.Service != "kube-system/metrics-server:443" {
					t.Errorf("%s: decision names APIService %+v", server, d.APIService)
				}
				if d.Outcome == mvp.Unavailable {
					words := d.Plain.Answer + strings.Join(d.Plain.WhyNot, "\n")
					for _, want := range []string{tc.a.Name, "kubectl get apiservice v1beta1.metrics.k8s.io -o yaml", "service unavailable"} {
						if !strings.Contains(words, want) {
							t.Errorf("%s: explain's words lack %q:\n%s", server, want, words)
						}
					}
					if tc.a.Available != nil && !strings.Contains(d.Plain.Answer, tc.a.Available.Reason) {
						t.Errorf("%s: the answer does not name the condition's reason: %s", server, d.Plain.Answer)
					}
				}
			}
		})
	}
}

// TestAggregatedRows: routes shows an unavailable APIService's group/version (its
// /apis/<group>/<version> row, and one per resource discovery lists) even though every server
// answers alike; an available one only with --all.
func TestAggregatedRows(t *testing.T) {
	cells := func(tab RoutingTable, name string) []string {
		for _, row := range tab.Rows {
			if row.Name == name {
				var out []string
				for _, c := range row.Cells {
					out = append(out, c.Text)
				}
				return out
			}
		}
		return nil
	}
	unavailable := []string{"local 503 (APIService unavailable)", "local 503 (APIService unavailable)"}
	for _, tc := range []struct {
		name string
		a    snapshot.APIService
		all  bool
		row  string
		want []string
	}{
		{"stale, discovery lists pods", metricsAPIService("False", "FailedDiscoveryCheck", "x", "pods"), false, "metrics.k8s.io/v1beta1/pods", unavailable},
		{"stale: the group/version's own row", metricsAPIService("False", "FailedDiscoveryCheck", "x", "pods"), false, "metrics.k8s.io/v1beta1", unavailable},
		{"stale, no resource listed", metricsAPIService("False", "ServiceNotFound", `service/metrics-server in "kube-system" is not present`), false, "metrics.k8s.io/v1beta1", unavailable},
		{"available: left out", metricsAPIService("True", "Passed", "all checks passed", "pods"), false, "metrics.k8s.io/v1beta1/pods", nil},
		{"available: the group/version's row left out", metricsAPIService("True", "Passed", "all checks passed", "pods"), false, "metrics.k8s.io/v1beta1", nil},
		{"available with --all", metricsAPIService("True", "Passed", "all checks passed", "pods"), true, "metrics.k8s.io/v1beta1/pods", []string{"local", "local"}},
		{"available with --all: the group/version's row", metricsAPIService("True", "Passed", "all checks passed", "pods"), true, "metrics.k8s.io/v1beta1", []string{"local", "local"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := NewRouter(aggregatedSnap("v1.36.3", tc.a)).Table(tc.all)
			if got := cells(tab, tc.row); !slices.Equal(got, tc.want) {
				t.Errorf("row %s: %q, want %q", tc.row, got, tc.want)
			}
			if !slices.IsSortedFunc(tab.Rows, func(a, b Row) int { return strings.Compare(a.Name, b.Name) }) {
				t.Error("rows not sorted")
			}
		})
	}
}

// TestAggregatedBackendWording: explain's plain steps say what a backend that answers with
// errors or slowly means (docs/behaviour.md §16, seen on v1.36.3 and v1.37.1): with the
// APIService Available, an error or slow answer is the backend's own, passed through; with
// FailedDiscoveryCheck, what the availability check met (an HTTP status, its 5 s timeout).
func TestAggregatedBackendWording(t *testing.T) {
	failed := func(msg string) snapshot.APIService {
		return metricsAPIService("False", "FailedDiscoveryCheck", msg, "pods")
	}
	for _, tc := range []struct {
		name string
		a    snapshot.APIService
		want []string // in the plain steps
	}{
		{"available", metricsAPIService("True", "Passed", "all checks passed", "pods"),
			[]string{"is the backend's own, passed through unchanged", "GET /apis/metrics.k8s.io/v1beta1 answers 2xx within 5 s"}},
		{"discovery answered 500", failed("failing or missing response from https://localhost:1/apis/metrics.k8s.io/v1beta1: bad status from https://localhost:1/apis/metrics.k8s.io/v1beta1: 500"),
			[]string{"why: the availability check's GET /apis/metrics.k8s.io/v1beta1 reached the backend, which answered HTTP 500"}},
		{"discovery too slow", failed(`failing or missing response from https://localhost:1/apis/metrics.k8s.io/v1beta1: Get "https://localhost:1/apis/metrics.k8s.io/v1beta1": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`),
			[]string{"why: the backend did not answer the availability check's GET /apis/metrics.k8s.io/v1beta1 within its 5 s timeout"}},
		{"refused", failed(`failing or missing response from https://localhost:1/apis/metrics.k8s.io/v1beta1: dial tcp 127.0.0.1:1: connect: connection refused`),
			[]string{"why: nothing accepted the availability check's GET /apis/metrics.k8s.io/v1beta1"}},
	} {
		r := NewRouter(aggregatedSnap("v1.36.3", tc.a))
		req, err := ParseRequest("GET", "/apis/metrics.k8s.io/v1beta1/pods")
		if err != nil {
			t.Fatal(err)
		}
		d, err := r.Decide("kas-a", req)
		if err != nil {
			t.Fatal(err)
		}
		var words []string
		for _, s := range d.Plain.Steps {
			words = append(words, s.Text)
		}
		for _, want := range tc.want {
			if !strings.Contains(strings.Join(words, "\n"), want) {
				t.Errorf("%s: the steps lack %q:\n%s", tc.name, want, strings.Join(words, "\n"))
			}
		}
	}
}
