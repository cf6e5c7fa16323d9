package peerdiscovery

import (
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestDiffAPIServices: discovery diff reports an aggregated APIService that is not available
// (its group/version Stale), and one available again while a server's discovery is still
// Stale; a plainly available one, or a local one, is not reported.
func TestDiffAPIServices(t *testing.T) {
	snap := load(t, "steady")
	svc := &snapshot.ServiceReference{Namespace: "kube-system", Name: "metrics-server", Port: 443}
	snap.Cluster.APIServices = []snapshot.APIService{
		{Name: "v1.apps", Group: "apps", Version: "v1", Available: &snapshot.APIServiceCondition{Status: "True", Reason: "Local"}},
		{Name: "v1.back.example.com", Group: "back.example.com", Version: "v1", Service: svc, Available: &snapshot.APIServiceCondition{Status: "True", Reason: "Passed"}, Stale: []string{"kas-b"}},
		{Name: "v1.fine.example.com", Group: "fine.example.com", Version: "v1", Service: svc, Available: &snapshot.APIServiceCondition{Status: "True", Reason: "Passed"}},
		{Name: "v1beta1.metrics.k8s.io", Group: "metrics.k8s.io", Version: "v1beta1", Service: svc,
			Available: &snapshot.APIServiceCondition{Status: "False", Reason: "FailedDiscoveryCheck", Message: "connection refused"}, Stale: []string{"kas-a", "kas-b"}},
	}
	rep := Diff(snap)
	var got []string
	for _, a := range rep.APIServices {
		got = append(got, a.Name+": "+a.Detail)
	}
	want := []string{
		"v1.back.example.com: available again, Stale in the discovery of kas-b until the aggregator's next discovery sync",
		"v1beta1.metrics.k8s.io: not available, Stale in the discovery of kas-a, kas-b: every apiserver answers its requests",
	}
	if len(got) != len(want) {
		t.Fatalf("APIServices reported: %q", got)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("got %q, want it to start with %q", got[i], want[i])
		}
	}
	if rep.APIServices[1].Available || rep.APIServices[1].Condition != "Available=False FailedDiscoveryCheck: connection refused" {
		t.Errorf("%+v", rep.APIServices[1])
	}
}
