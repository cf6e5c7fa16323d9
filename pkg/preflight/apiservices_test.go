package preflight

import (
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestPreflightAPIServices: MVP050 names each aggregated APIService that is not Available in
// the start snapshot, with its condition and what to check; it does not run (and is not
// listed) when the snapshot did not record the APIServices.
func TestPreflightAPIServices(t *testing.T) {
	since := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	svc := &snapshot.ServiceReference{Namespace: "kube-system", Name: "metrics-server", Port: 443}
	for _, tc := range []struct {
		name     string
		lists    *snapshot.ListsRead
		services []snapshot.APIService
		ran      bool
		subjects []string
		hint     string
	}{
		{"dead backend", &snapshot.ListsRead{APIServices: true}, []snapshot.APIService{
			{Name: "v1.apps", Group: "apps", Version: "v1", Available: &snapshot.APIServiceCondition{Status: "True", Reason: "Local"}},
			{Name: "v1beta1.metrics.k8s.io", Group: "metrics.k8s.io", Version: "v1beta1", Service: svc,
				Available: &snapshot.APIServiceCondition{Status: "False", Reason: "FailedDiscoveryCheck", Message: "connection refused", LastTransitionTime: &since}},
		}, true, []string{"v1beta1.metrics.k8s.io"}, "kubectl get apiservice v1beta1.metrics.k8s.io -o yaml"},
		{"no endpoints", &snapshot.ListsRead{APIServices: true}, []snapshot.APIService{
			{Name: "v1beta1.metrics.k8s.io", Group: "metrics.k8s.io", Version: "v1beta1", Service: svc,
				Available: &snapshot.APIServiceCondition{Status: "False", Reason: "MissingEndpoints"}},
		}, true, []string{"v1beta1.metrics.k8s.io"}, "get endpointslices -l kubernetes.io/service-name=metrics-server"},
		{"no condition yet", &snapshot.ListsRead{APIServices: true}, []snapshot.APIService{
			{Name: "v1beta1.metrics.k8s.io", Group: "metrics.k8s.io", Version: "v1beta1", Service: svc},
		}, true, []string{"v1beta1.metrics.k8s.io"}, "kubectl get apiservice"},
		{"all available", &snapshot.ListsRead{APIServices: true}, []snapshot.APIService{
			{Name: "v1beta1.metrics.k8s.io", Group: "metrics.k8s.io", Version: "v1beta1", Service: svc, Available: &snapshot.APIServiceCondition{Status: "True", Reason: "Passed"}},
		}, true, nil, ""},
		{"not recorded", nil, nil, false, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := loadCaptured(t, "steady")
			start.Cluster.ListsRead, start.Cluster.APIServices = tc.lists, tc.services
			// Every server's discovery still lists the group/version as current (the aggregator
			// has not resynced it yet): its 503 is the APIService's, MVP050's, not an MVP010 risk.
			for i := range start.Servers {
				start.Servers[i].Resources = append(start.Servers[i].Resources, snapshot.Resource{Group: "metrics.k8s.io", Version: "v1beta1",
					Resource: "pods", Namespaced: true, Verbs: []string{"get", "list"}, Source: snapshot.SourceAggregated})
			}
			rep, err := Run(t.Context(), Options{Start: start})
			if err != nil {
				t.Fatal(err)
			}
			if hasCheck(rep.Checks, CheckAPIServices.ID) != tc.ran {
				t.Errorf("MVP050 listed: %v, want %v", !tc.ran, tc.ran)
			}
			var subjects []string
			for _, f := range rep.Findings {
				if f.Check == CheckServedEveryStep.ID && strings.Contains(f.Subject, "metrics.k8s.io") {
					t.Errorf("MVP010 for the APIService's 503: %+v", f)
				}
				if f.Check != CheckAPIServices.ID {
					continue
				}
				subjects = append(subjects, f.Subject)
				if f.Severity != Warning || !strings.Contains(f.Message, "kubectl api-resources") || !strings.Contains(f.Message, `503 "service unavailable"`) ||
					!strings.Contains(f.Hint, tc.hint) || len(f.Evidence) != 1 {
					t.Errorf("finding %+v", f)
				}
			}
			if strings.Join(subjects, ",") != strings.Join(tc.subjects, ",") {
				t.Errorf("MVP050 subjects %v, want %v", subjects, tc.subjects)
			}
		})
	}
}
