package watch

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestAPIServiceEvents: an aggregated APIService going unavailable and back is reported as
// apiservice events, each server's cell of its group/version's row changes between local and
// the aggregator's 503, and the 503 is a window though discovery then lists the group/version
// nowhere (docs/behaviour.md §16). A snapshot that did not read the list changes nothing.
func TestAPIServiceEvents(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	pods := snapshot.Resource{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "pods", Namespaced: true, Verbs: []string{"get", "list"}, Source: snapshot.SourceAggregated}
	state := func(status, reason string, read bool) *snapshot.Snapshot {
		s, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: "1.36"}, {Name: "b", Version: "1.37"}}, t0)
		if err != nil {
			t.Fatal(err)
		}
		a := snapshot.APIService{Name: "v1beta1.metrics.k8s.io", Group: "metrics.k8s.io", Version: "v1beta1",
			Service:   &snapshot.ServiceReference{Namespace: "kube-system", Name: "metrics-server", Port: 443},
			Available: &snapshot.APIServiceCondition{Status: status, Reason: reason}}
		for i := range s.Servers {
			if status == "True" { // Current in discovery: served by each server's aggregator
				s.Servers[i].Resources = append(s.Servers[i].Resources, pods)
			}
		}
		if status == "True" { // a Stale entry lists no resource (v1.36.3, v1.37.1)
			a.Resources = []string{"pods"}
		}
		s.Cluster.AggregatedGroupVersions = []string{"metrics.k8s.io/v1beta1"}
		s.Cluster.ListsRead = &snapshot.ListsRead{CustomResourceDefinitions: read, APIServices: read}
		if read {
			s.Cluster.APIServices = []snapshot.APIService{a}
		}
		return s
	}
	tr := NewTracker()
	var got []string
	for i, s := range []*snapshot.Snapshot{state("True", "Passed", true), state("False", "FailedDiscoveryCheck", true),
		state("False", "FailedDiscoveryCheck", false), state("True", "Passed", true)} {
		for _, e := range tr.Observe(s, t0.Add(time.Duration(i)*10*time.Second)) {
			switch e.Type {
			case APIServiceUnavailable, APIServiceAvailable:
				got = append(got, fmt.Sprintf("%d %s %s %s→%s", i, e.Type, e.APIService, e.From, e.To))
			case OutcomeChanged, WindowOpened, WindowClosed:
				if e.GVR == "metrics.k8s.io/v1beta1" { // the group/version's row stays in every state
					got = append(got, fmt.Sprintf("%d %s %s %s→%s%s", i, e.Type, e.Server, e.From, e.To, toOutcome(e)))
				}
			}
		}
	}
	want := []string{
		"1 apiservice-unavailable v1beta1.metrics.k8s.io Available=True Passed→Available=False FailedDiscoveryCheck",
		"1 outcome-changed a local→local 503 (APIService unavailable) [unavailable]",
		"1 window-opened a →local 503 (APIService unavailable)",
		"1 outcome-changed b local→local 503 (APIService unavailable) [unavailable]",
		"1 window-opened b →local 503 (APIService unavailable)",
		"3 apiservice-available v1beta1.metrics.k8s.io Available=False FailedDiscoveryCheck→Available=True Passed",
		"3 outcome-changed a local 503 (APIService unavailable)→local [local]",
		"3 window-closed a →",
		"3 outcome-changed b local 503 (APIService unavailable)→local [local]",
		"3 window-closed b →",
	}
	if !slices.Equal(got, want) {
		t.Errorf("events:\n%q\nwant:\n%q", got, want)
	}
}

// toOutcome is " [outcome]" for an outcome-changed event: the typed outcome its To cell has.
func toOutcome(e Event) string {
	if e.Type != OutcomeChanged {
		return ""
	}
	return " [" + string(e.ToOutcome) + "]"
}
