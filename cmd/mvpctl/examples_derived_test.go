package main

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// derivedExamples are the shipped examples made from examples/skew.yaml by adding client
// evidence, so that a newcomer sees the evidence verdicts without a cluster: each is
// skew.yaml with what its function adds, and nothing else.
var derivedExamples = map[string]func(*snapshot.Snapshot){
	// Both servers' request counters, covering the 5 seconds since they started, with no
	// request of an alpha or beta API.
	"../../examples/skew-counters.yaml": withCounters,
	// The same counters, and a Prometheus that kept 8 days of apiserver_request_total: 30
	// lists of storage.k8s.io/v1beta1 volumeattributesclasses on kas-a before a restart.
	"../../examples/skew-prometheus.yaml": func(s *snapshot.Snapshot) {
		withCounters(s)
		oldest := s.TakenAt.Add(-8 * 24 * time.Hour).Truncate(time.Second)
		vac := snapshot.RequestCount{Group: "storage.k8s.io", Version: "v1beta1", Resource: "volumeattributesclasses", Verb: "LIST", Count: 30}
		s.Prometheus = &snapshot.PrometheusEvidence{
			URL: "http://prometheus.monitoring:9090", ReadAt: s.TakenAt, WindowSeconds: 7 * 24 * 3600, OldestSample: &oldest,
			Counts: []snapshot.PrometheusCount{
				{Instance: "127.0.0.1:38225", RequestCount: snapshot.RequestCount{Version: "v1", Resource: "pods", Verb: "LIST", Count: 40}},
				{Instance: "127.0.0.1:38219", RequestCount: vac},
			},
			Deprecated: []snapshot.DeprecatedRequest{{Group: vac.Group, Version: vac.Version, Resource: vac.Resource, RemovedRelease: "1.37"}},
		}
	},
}

// withCounters records on every server the counters of a process started 5 seconds before the
// snapshot: 40 lists of pods and 12 watches of deployments.
func withCounters(s *snapshot.Snapshot) {
	started := s.TakenAt.Add(-5 * time.Second)
	for i := range s.Servers {
		s.Servers[i].Requests = &snapshot.RequestCounts{ReadAt: s.TakenAt, StartedAt: &started, Counts: []snapshot.RequestCount{
			{Version: "v1", Resource: "pods", Verb: "LIST", Count: 40},
			{Group: "apps", Version: "v1", Resource: "deployments", Verb: "WATCH", Count: 12},
		}}
	}
}

// TestDerivedExamples: each derived example is examples/skew.yaml with its evidence added, so a
// re-recorded skew.yaml (make examples) carries over; -update rewrites them.
func TestDerivedExamples(t *testing.T) {
	for path, add := range derivedExamples {
		s, err := snapshot.LoadFile("../../examples/skew.yaml")
		if err != nil {
			t.Fatal(err)
		}
		add(s)
		want, err := s.Marshal(false)
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not examples/skew.yaml with its evidence added: run go test ./cmd/mvpctl -run TestDerivedExamples -update", path)
		}
	}
}
