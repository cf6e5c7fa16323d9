package watch

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestUpgradeReadinessEvidenceWindow: right after the apiservers restart, their counters
// cover seconds: a GVR both serve today and 1.37 removes may have clients, and the plane is
// not ready; over a window the counters cover (stated), it is; with Prometheus holding 8 days
// and no client, it is. The evidence span and the window are exported.
func TestUpgradeReadinessEvidenceWindow(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	p, err := profile.Lookup("1.36")
	if err != nil {
		t.Fatal(err)
	}
	plane := func() *snapshot.Snapshot {
		s := readinessPlane(t, "configured", t0)
		started := t0.Add(-5 * time.Second)
		for i := range s.Servers {
			for _, r := range p.Full {
				if r.Group == "networking.k8s.io" && r.Version == "v1beta1" {
					s.Servers[i].Resources = append(s.Servers[i].Resources, r)
				}
			}
			s.Servers[i].Requests = &snapshot.RequestCounts{ReadAt: t0, StartedAt: &started}
		}
		return s
	}
	oldest := t0.Add(-8 * 24 * time.Hour)
	prom := func() *snapshot.PrometheusEvidence {
		return &snapshot.PrometheusEvidence{URL: "http://prom:9090", ReadAt: t0, OldestSample: &oldest, WindowSeconds: 7 * 24 * 3600}
	}
	for _, tc := range []struct {
		name      string
		cfg       UpgradeReadiness
		ready     float64
		window    float64
		promSpan  float64
		countSpan float64
	}{
		{"counters of 5s, the default window: not ready", UpgradeReadiness{}, 0, 7 * 24 * 3600, 0, 5},
		{"counters of 5s, a 4s window stated: ready", UpgradeReadiness{EvidenceWindow: 4 * time.Second}, 1, 4, 0, 5},
		{"Prometheus holding 8 days, no client: ready", UpgradeReadiness{Prometheus: prom}, 1, 7 * 24 * 3600, 8 * 24 * 3600, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMetrics()
			m.EnableUpgradeReadiness(tc.cfg)
			reg := prometheus.NewPedanticRegistry()
			reg.MustRegister(m)
			m.Observe(Read{Started: t0, Ended: t0, Snapshot: plane()})
			sc := gather(t, reg)
			for k, want := range map[string]float64{
				`mvpctl_upgrade_ready{to="1.37"}`:                                           tc.ready,
				`mvpctl_upgrade_evidence_window_seconds{to="1.37"}`:                         tc.window,
				`mvpctl_upgrade_evidence_span_seconds{source="prometheus",to="1.37"}`:       tc.promSpan,
				`mvpctl_upgrade_evidence_span_seconds{source="request-counters",to="1.37"}`: tc.countSpan,
			} {
				if got, ok := sc[k]; !ok || got != want {
					t.Errorf("%s = %v (present %v), want %v", k, got, ok, want)
				}
			}
		})
	}
}
