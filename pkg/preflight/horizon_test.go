package preflight

import (
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestPreflightHorizon: "no request counted" shows no client only over a span that covers the
// evidence window; counters that started after its beginning (a restart) cannot, and the GVR
// every apiserver answers blocks, naming each span read, the window and what would cover it.
func TestPreflightHorizon(t *testing.T) {
	read := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	counters := func(spanA, spanB time.Duration) map[string]*snapshot.RequestCounts {
		out := map[string]*snapshot.RequestCounts{}
		for name, span := range map[string]time.Duration{"a": spanA, "b": spanB} {
			rc := &snapshot.RequestCounts{ReadAt: read, Counts: []snapshot.RequestCount{{Version: "v1", Resource: "pods", Verb: "LIST", Count: 40}}}
			if span >= 0 {
				started := read.Add(-span)
				rc.StartedAt = &started
			}
			out[name] = rc
		}
		return out
	}
	const gadgets = "MVP011:old.k8s.io/v1beta1/gadgets"
	for _, tc := range []struct {
		name     string
		counters map[string]*snapshot.RequestCounts
		window   time.Duration
		want     Severity
		says     []string
	}{
		{"counters of 5s against the default window: blocking, naming the spans and the window", counters(5*time.Second, 5*time.Second), 0, Blocking,
			[]string{"clients may use it", "less than the 7d evidence window (--evidence-window): the request counters of a 5s, b 5s", "To cover it: --prometheus (its kept apiserver_request_total)", "a shorter --evidence-window"}},
		{"counters of 8 days against the default window: a warning", counters(8*24*time.Hour, 8*24*time.Hour), 0, Warning,
			[]string{"no request counted on a (since it started 8d before 2026-11-27T12:00:00Z)"}},
		{"one server restarted an hour ago: blocking, naming its span", counters(8*24*time.Hour, time.Hour), 0, Blocking,
			[]string{"the request counters of a 8d, b 60m"}},
		{"a shorter window, stated: a warning", counters(5*time.Minute, 5*time.Minute), 4 * time.Minute, Warning,
			[]string{"no request counted on a"}},
		{"counters of an unknown start: blocking", counters(-1, 8*24*time.Hour), 0, Blocking,
			[]string{"the request counters of a (span unknown), b 8d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: "1.36"}, {Name: "b", Version: "1.36"}}, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			for name, rc := range tc.counters {
				start.Find(name).Requests = rc
			}
			rep := upgradeFinding(t, start, tc.window, gadgets, tc.want, tc.says)
			if failing := rep.Failing(FailOnBlocking); (failing == Blocking) != (tc.want == Blocking) {
				t.Errorf("failing at --fail-on blocking: %q, with the finding %s", failing, tc.want)
			}
		})
	}
}

// TestPreflightPrometheusEvidence: what a Prometheus kept covers the window the counters since
// a restart do not: a client it kept blocks, named; none over a window it covers is a warning;
// a Prometheus not read is a partial read, never a pass.
func TestPreflightPrometheusEvidence(t *testing.T) {
	read := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	fresh := read.Add(-5 * time.Second)
	kept := func(oldest time.Duration, errText string, counts ...snapshot.PrometheusCount) *snapshot.PrometheusEvidence {
		o := read.Add(-oldest)
		return &snapshot.PrometheusEvidence{URL: "http://prom:9090", ReadAt: read, WindowSeconds: 7 * 24 * 3600, OldestSample: &o, Error: errText, Counts: counts}
	}
	client := snapshot.PrometheusCount{Instance: "10.0.0.1:6443", RequestCount: snapshot.RequestCount{Group: "old.k8s.io", Version: "v1beta1", Resource: "gadgets", Verb: "LIST", Count: 30}}
	const gadgets = "MVP011:old.k8s.io/v1beta1/gadgets"
	for _, tc := range []struct {
		name        string
		prom        *snapshot.PrometheusEvidence
		want        Severity
		wantPartial bool
		says        []string
	}{
		{"a client Prometheus kept across the restart blocks, named", kept(8*24*time.Hour, "", client), Blocking, false,
			[]string{"clients use it: 30 request(s) on instance 10.0.0.1:6443 kept by Prometheus over 8d"}},
		{"no client over a window Prometheus covers: a warning", kept(8*24*time.Hour, ""), Warning, false,
			[]string{"no request kept by Prometheus http://prom:9090 (oldest sample 8d before 2026-11-27T12:00:00Z)"}},
		{"Prometheus holding 2 days: may break, naming its span", kept(2*24*time.Hour, ""), Blocking, false,
			[]string{"Prometheus of http://prom:9090 2d", "To cover it: a Prometheus (or Thanos, Mimir) that keeps apiserver_request_total over the window (http://prom:9090 holds less)"}},
		{"Prometheus not read: partial, and may break", kept(0, "HTTP 401: check the credentials (--prometheus-config)"), Blocking, true,
			[]string{"the request counters of a 5s, b 5s", "Prometheus http://prom:9090 was not read: HTTP 401: check the credentials (--prometheus-config). To cover it: a --prometheus read that succeeds,"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: "1.36"}, {Name: "b", Version: "1.36"}}, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"a", "b"} {
				start.Find(name).Requests = &snapshot.RequestCounts{ReadAt: read, StartedAt: &fresh}
			}
			start.Prometheus = tc.prom
			rep := upgradeFinding(t, start, 0, gadgets, tc.want, tc.says)
			if partial := len(rep.Verdict.Partial()) > 0; partial != tc.wantPartial {
				t.Errorf("partial %v (%v), want %v", partial, rep.Verdict.Partial(), tc.wantPartial)
			}
			if tc.wantPartial && rep.Failing(FailOnBlocking) == "" {
				t.Error("a Prometheus not read passes at --fail-on blocking")
			}
		})
	}
}

// upgradeFinding rehearses start's upgrade to 1.37 and wants the finding key with severity
// want, its message holding every one of says; it returns the report.
func upgradeFinding(t *testing.T, start *snapshot.Snapshot, window time.Duration, key string, want Severity, says []string) *Report {
	t.Helper()
	steps, _ := simulate.UpgradePlan(start, "1.37", nil)
	rep, err := Run(t.Context(), Options{Start: start, Steps: steps, Target: "1.37", EvidenceWindow: window, FailOn: FailOnBlocking})
	if err != nil {
		t.Fatal(err)
	}
	var f *Finding
	for i := range rep.Findings {
		if rep.Findings[i].Key() == key {
			f = &rep.Findings[i]
		}
	}
	if f == nil || f.Severity != want {
		t.Fatalf("%s: want %s, got %+v", key, want, f)
	}
	for _, s := range says {
		if !strings.Contains(f.Message, s) {
			t.Errorf("message %q lacks %q", f.Message, s)
		}
	}
	return rep
}
