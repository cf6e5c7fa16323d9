package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mvpctl/mvpctl/pkg/preflight"
	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// DefaultReadinessEvery is how many reads at most pass between two runs of the upgrade gate
// when the plane does not change (UpgradeReadiness.Every).
const DefaultReadinessEvery = 10

// Upgrade readiness: the preflight gate (preflight.Run) against a target, run on the
// watch's snapshot with its request counters as client evidence. Labels are bounded: to is
// one value, result the four of preflight.Result, check the preflight check IDs, severity
// the three of preflight.Severity.
var (
	descUpgradeReady = newDesc("upgrade_ready",
		"1 if the preflight gate against the target passes at --fail-on blocking (no blocking finding, every apiserver read), 0 if not.", "to")
	descUpgradeVerdict = newDesc("upgrade_verdict",
		"Always 0 or 1, one-hot over result (pass, warning, partial, blocking): the preflight gate's result against the target.", "to", "result")
	descUpgradeFindings = newDesc("upgrade_findings",
		"Findings of the preflight gate against the target not accepted, by check ID and severity (0 for every check that ran).", "to", "check", "severity")
	descUpgradeLastRun = newDesc("upgrade_gate_last_run_timestamp_seconds",
		"When the preflight gate against the target last ran, in seconds since the epoch.", "to")
	descEvidenceSpan = newDesc("upgrade_evidence_span_seconds",
		"How far back the gate's client evidence looked, by source (request-counters: the shortest span since an apiserver's start; prometheus: from the oldest sample held); 0 when not read or unknown. Below upgrade_evidence_window_seconds, no source can show that nothing uses an API.", "to", "source")
	descEvidenceWindow = newDesc("upgrade_evidence_window_seconds",
		"The look-back the gate requires of client evidence (--evidence-window).", "to")
)

// EvidenceSpanSources are the sources whose span is exported, each always (0 when not read).
var EvidenceSpanSources = []string{replay.SourceRequestCounts, replay.SourcePrometheus}

// UpgradeResults are the verdict's results, in the order exported.
var UpgradeResults = []preflight.Result{preflight.ResultPass, preflight.ResultWarning, preflight.ResultPartial, preflight.ResultBlocking}

var upgradeSeverities = []preflight.Severity{preflight.Blocking, preflight.Warning, preflight.Info}

// UpgradeReadiness configures the gate the metrics run at each read.
type UpgradeReadiness struct {
	// To is the target version; empty: the minor after the oldest apiserver's.
	To string
	// Every is how many reads at most pass between two runs when the plane did not change
	// (DefaultReadinessEvery when 0); a changed plane (servers, versions, reachability,
	// configuration, what is served: all but the read time and the request counters) runs it
	// at once.
	Every int
	// EvidenceWindow is how far back client evidence must look (replay.DefaultEvidenceWindow
	// when zero).
	EvidenceWindow time.Duration
	// Prometheus, when set, reads what a Prometheus kept of the apiservers' request counters
	// at each run of the gate: client evidence that survives their restarts.
	Prometheus func() *snapshot.PrometheusEvidence
}

// Readiness is the result of the last run of the upgrade gate.
type Readiness struct {
	To       string
	Ran      time.Time
	Verdict  preflight.Verdict
	Checks   []string
	Findings map[findingKey]int
	// Window is the evidence window; Spans how far back each source of EvidenceSpanSources
	// looked (0: not read or unknown).
	Window time.Duration
	Spans  map[string]time.Duration
}

type findingKey struct {
	check    string
	severity preflight.Severity
}

// readinessState is what the metrics keep of the gate between reads.
type readinessState struct {
	cfg        UpgradeReadiness
	key        uint64
	sinceRun   int
	last       *Readiness
	lastErr    error
	runs, errs int
}

// EnableUpgradeReadiness makes the metrics run the upgrade gate as cfg says.
func (m *Metrics) EnableUpgradeReadiness(cfg UpgradeReadiness) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if cfg.Every <= 0 {
		cfg.Every = DefaultReadinessEvery
	}
	m.readiness = &readinessState{cfg: cfg}
}

// LastReadiness is the last run's result and the error of the last run, if it failed (nil,
// nil before the first run or without readiness).
func (m *Metrics) LastReadiness() (*Readiness, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.readiness == nil {
		return nil, nil
	}
	return m.readiness.last, m.readiness.lastErr
}

// GateRuns counts the runs of the gate so far.
func (m *Metrics) GateRuns() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.readiness == nil {
		return 0
	}
	return m.readiness.runs
}

// observe runs the gate on a read's snapshot when the plane changed or Every reads passed.
func (rs *readinessState) observe(snap *snapshot.Snapshot, now time.Time) {
	key := planeKey(snap)
	rs.sinceRun++
	if rs.runs > 0 && key == rs.key && rs.sinceRun < rs.cfg.Every {
		return
	}
	rs.key, rs.sinceRun = key, 0
	rs.runs++
	r, err := gate(snap, rs.cfg, now)
	if err != nil {
		rs.errs++
		rs.last, rs.lastErr = nil, err
		return
	}
	rs.last, rs.lastErr = r, nil
}

// planeKey is a hash of the snapshot without its read time, its request counters and the
// identity-lease renewals of the servers that answered (each renews every 10 s; the rehearsal
// of an upgrade reads lease times only for a server that is down): what a re-run of the gate
// could decide otherwise on.
func planeKey(snap *snapshot.Snapshot) uint64 {
	c := *snap
	c.TakenAt = time.Time{}
	c.Servers = append([]snapshot.Server(nil), snap.Servers...)
	for i := range c.Servers {
		s := &c.Servers[i]
		s.Requests = nil
		if s.Reachable && s.IdentityLease != nil {
			l := *s.IdentityLease
			l.RenewTime = nil
			s.IdentityLease = &l
		}
	}
	b, err := json.Marshal(&c)
	if err != nil {
		return 0
	}
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// NextMinor is the minor after the oldest apiserver's version ("1.37" for a plane of 1.36
// servers, or of 1.36 and 1.37 ones).
func NextMinor(snap *snapshot.Snapshot) (string, error) {
	var oldest *snapshot.Version
	for _, s := range snap.Servers {
		v, err := snapshot.ParseVersion(s.Version)
		if err != nil {
			continue
		}
		if oldest == nil || v.Less(*oldest) {
			oldest = &v
		}
	}
	if oldest == nil {
		return "", fmt.Errorf("no apiserver's version is known")
	}
	return fmt.Sprintf("%d.%d", oldest.Major, oldest.Minor+1), nil
}

// Gate runs the preflight gate on snap against to (NextMinor when empty): a rolling upgrade in
// the snapshot's order, judged at --fail-on blocking, with the snapshot's request counters as
// client evidence.
func Gate(snap *snapshot.Snapshot, to string, now time.Time) (*Readiness, error) {
	return gate(snap, UpgradeReadiness{To: to}, now)
}

// gate is Gate with cfg's evidence window and Prometheus.
func gate(snap *snapshot.Snapshot, cfg UpgradeReadiness, now time.Time) (*Readiness, error) {
	to := cfg.To
	if cfg.Prometheus != nil {
		withProm := *snap
		withProm.Prometheus = cfg.Prometheus()
		snap = &withProm
	}
	if to == "" {
		next, err := NextMinor(snap)
		if err != nil {
			return nil, err
		}
		to = next
	}
	steps, err := simulate.UpgradePlan(snap, to, nil)
	if err != nil {
		return nil, err
	}
	rep, err := preflight.Run(context.Background(), preflight.Options{Start: snap, Steps: steps, Target: to, FailOn: preflight.FailOnBlocking, EvidenceWindow: cfg.EvidenceWindow})
	if err != nil {
		return nil, err
	}
	r := &Readiness{To: to, Ran: now, Verdict: rep.Verdict, Findings: map[findingKey]int{},
		Window: time.Duration(rep.Evidence.WindowSeconds) * time.Second, Spans: spansOf(rep.Evidence)}
	for _, c := range rep.Checks {
		r.Checks = append(r.Checks, c.ID)
	}
	for _, f := range rep.Findings {
		r.Findings[findingKey{f.Check, f.Severity}]++
	}
	return r, nil
}

// collectReadiness exports the last run of the gate (nothing before one, or when it failed).
func (m *Metrics) collectReadiness(gauge func(*prometheus.Desc, float64, ...string)) {
	if m.readiness == nil || m.readiness.last == nil {
		return
	}
	r := m.readiness.last
	gauge(descUpgradeReady, boolValue(!r.Verdict.Fails()), r.To)
	gauge(descUpgradeLastRun, unixSeconds(r.Ran), r.To)
	for _, res := range UpgradeResults {
		gauge(descUpgradeVerdict, boolValue(r.Verdict.Result == res), r.To, string(res))
	}
	for _, id := range r.Checks {
		for _, sev := range upgradeSeverities {
			gauge(descUpgradeFindings, float64(r.Findings[findingKey{id, sev}]), r.To, id, string(sev))
		}
	}
	gauge(descEvidenceWindow, r.Window.Seconds(), r.To)
	for _, src := range EvidenceSpanSources {
		gauge(descEvidenceSpan, r.Spans[src].Seconds(), r.To, src)
	}
}

// spansOf is, per source kind of EvidenceSpanSources, the shortest span of its sources: 0
// when one of them was not read or its span is unknown.
func spansOf(ev *replay.ClientEvidence) map[string]time.Duration {
	out := map[string]time.Duration{}
	if ev == nil {
		return out
	}
	seen := map[string]bool{}
	for _, s := range ev.Sources {
		span, ok := s.Span()
		if !s.Read || !ok {
			span = 0
		}
		if !seen[s.Kind] || span < out[s.Kind] {
			out[s.Kind] = span
		}
		seen[s.Kind] = true
	}
	return out
}
