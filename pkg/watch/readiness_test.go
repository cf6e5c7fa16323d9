package watch

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/mvpctl/mvpctl/pkg/preflight"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func readinessPlane(t *testing.T, proxy string, t0 time.Time) *snapshot.Snapshot {
	t.Helper()
	s, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: "1.36", Proxy: proxy}, {Name: "b", Version: "1.36", Proxy: proxy}}, t0)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestUpgradeReadinessMetrics: the gate against the next minor is exported per verdict and
// check: a plane with the proxy configured is ready (pass); one with the defaults passes at
// blocking with warnings (MVP003, MVP010 counted); one whose apiserver could not be read is
// not ready (MVP001 blocks). The verdict is one-hot; promlint stays clean.
func TestUpgradeReadinessMetrics(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	down := readinessPlane(t, "configured", t0)
	down.Servers[1].Reachable, down.Servers[1].Error = false, "dial tcp 10.0.0.2:6443: connect: connection refused"
	for _, tc := range []struct {
		name     string
		snap     *snapshot.Snapshot
		ready    float64
		result   preflight.Result
		findings map[string]float64
	}{
		{"configured", readinessPlane(t, "configured", t0), 1, preflight.ResultPass, map[string]float64{`check="MVP010",severity="warning"`: 0}},
		{"defaults", readinessPlane(t, "", t0), 1, preflight.ResultWarning,
			map[string]float64{`check="MVP003",severity="warning"`: 2, `check="MVP010",severity="warning"`: 4, `check="MVP010",severity="blocking"`: 0}},
		{"down", down, 0, preflight.ResultBlocking, map[string]float64{`check="MVP001",severity="blocking"`: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMetrics()
			m.EnableUpgradeReadiness(UpgradeReadiness{})
			reg := prometheus.NewPedanticRegistry()
			reg.MustRegister(m)
			m.Observe(Read{Started: t0, Ended: t0, Snapshot: tc.snap})
			sc := gather(t, reg)
			if got := sc[`mvpctl_upgrade_ready{to="1.37"}`]; got != tc.ready || len(series(sc, "mvpctl_upgrade_ready")) != 1 {
				t.Errorf("ready %v (%q), want %v", got, series(sc, "mvpctl_upgrade_ready"), tc.ready)
			}
			verdicts := series(sc, "mvpctl_upgrade_verdict")
			sum := 0.0
			for _, k := range verdicts {
				sum += sc[k]
			}
			if len(verdicts) != len(UpgradeResults) || sum != 1 || sc[`mvpctl_upgrade_verdict{result="`+string(tc.result)+`",to="1.37"}`] != 1 {
				t.Errorf("verdict series %q (sum %v), want one-hot on %s", verdicts, sum, tc.result)
			}
			for labels, want := range tc.findings {
				k := `mvpctl_upgrade_findings{` + labels + `,to="1.37"}`
				if got, ok := sc[k]; !ok || got != want {
					t.Errorf("%s = %v (present %v), want %v", k, got, ok, want)
				}
			}
			if sc[`mvpctl_upgrade_gate_last_run_timestamp_seconds{to="1.37"}`] != unixSeconds(t0) {
				t.Errorf("last run %v", sc[`mvpctl_upgrade_gate_last_run_timestamp_seconds{to="1.37"}`])
			}
			problems, err := testutil.GatherAndLint(reg)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range problems {
				t.Errorf("promlint: %s: %s", p.Metric, p.Text)
			}
		})
	}
}

// TestUpgradeReadinessBounded: the gate runs at the first read, again only when the plane
// changes or Every reads passed; new request counters and read times alone do not run it.
// Without readiness enabled, no upgrade series.
func TestUpgradeReadinessBounded(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	m := NewMetrics()
	m.EnableUpgradeReadiness(UpgradeReadiness{To: "1.37", Every: 5})
	plane := readinessPlane(t, "configured", t0)
	wantRuns := []int{1, 1, 1, 1, 1, 2, 2}
	for i, want := range wantRuns {
		s := *plane
		s.TakenAt = t0.Add(time.Duration(i) * time.Second)
		s.Servers = append([]snapshot.Server(nil), plane.Servers...)
		s.Servers[0].Requests = &snapshot.RequestCounts{}
		// A reachable server renews its identity lease every 10 s: not a change of the plane.
		renewed := s.TakenAt
		s.Servers[0].IdentityLease = &snapshot.Lease{Name: "apiserver-a", RenewTime: &renewed}
		m.Observe(Read{Started: s.TakenAt, Ended: s.TakenAt, Snapshot: &s})
		if got := m.GateRuns(); got != want {
			t.Fatalf("read %d: %d runs, want %d", i, got, want)
		}
	}
	changed := readinessPlane(t, "configured", t0)
	changed.Servers[1].Reachable = false
	m.Observe(Read{Started: t0, Ended: t0, Snapshot: changed})
	if got := m.GateRuns(); got != 3 {
		t.Errorf("after a server went down: %d runs, want 3", got)
	}
	if r, err := m.LastReadiness(); err != nil || r == nil || r.Verdict.Result != preflight.ResultBlocking {
		t.Errorf("after a server went down: %+v, %v; want blocking", r, err)
	}
	m.Observe(Read{Started: t0, Ended: t0, Err: ErrNoObservation})
	if got := m.GateRuns(); got != 3 {
		t.Errorf("a read that got nothing ran the gate: %d runs", got)
	}

	plain := NewMetrics()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(plain)
	plain.Observe(Read{Started: t0, Ended: t0, Snapshot: plane})
	if got := series(gather(t, reg), "mvpctl_upgrade_ready"); len(got) != 0 {
		t.Errorf("readiness not enabled, yet %q", got)
	}
}

func TestNextMinor(t *testing.T) {
	for _, tc := range []struct {
		versions []string
		want     string
	}{
		{[]string{"v1.36.2", "v1.36.0"}, "1.37"},
		{[]string{"v1.37.0", "v1.36.3"}, "1.37"},
		{[]string{"", "v1.35.1"}, "1.36"},
		{[]string{""}, ""},
	} {
		s := &snapshot.Snapshot{}
		for _, v := range tc.versions {
			s.Servers = append(s.Servers, snapshot.Server{Name: "x", Version: v})
		}
		got, err := NextMinor(s)
		if got != tc.want || (err != nil) != (tc.want == "") {
			t.Errorf("NextMinor(%v) = %q, %v; want %q", tc.versions, got, err, tc.want)
		}
	}
}

// BenchmarkUpgradeGate is the cost of one run of the gate on a three-server 1.36 plane.
func BenchmarkUpgradeGate(b *testing.B) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	s, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: "1.36"}, {Name: "b", Version: "1.36"}, {Name: "c", Version: "1.36"}}, t0)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Gate(s, "", t0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpgradeGateSkipped is what a read of an unchanged plane costs the readiness: the
// plane's key, no gate.
func BenchmarkUpgradeGateSkipped(b *testing.B) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	s, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: "1.36"}, {Name: "b", Version: "1.36"}, {Name: "c", Version: "1.36"}}, t0)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		planeKey(s)
	}
}
