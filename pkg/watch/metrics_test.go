package watch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mvpctl/mvpctl/pkg/proxytraffic"
	"github.com/mvpctl/mvpctl/pkg/report"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// stepClock is a clock that jumps forward by whatever the loop waits for.
type stepClock struct{ now time.Time }

func (c *stepClock) Now() time.Time { return c.now }
func (c *stepClock) After(d time.Duration) <-chan time.Time {
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

// scriptedReads returns a Read that gives each result in turn, the last one again and again.
func scriptedReads(results ...func() (*snapshot.Snapshot, error)) func(context.Context) (*snapshot.Snapshot, error) {
	i := 0
	return func(context.Context) (*snapshot.Snapshot, error) {
		r := results[min(i, len(results)-1)]
		i++
		return r()
	}
}

func ok(s *snapshot.Snapshot) func() (*snapshot.Snapshot, error) {
	return func() (*snapshot.Snapshot, error) { return s, nil }
}

func fails(err error) func() (*snapshot.Snapshot, error) {
	return func() (*snapshot.Snapshot, error) { return nil, err }
}

// gatherSink passes each read to the metrics, then keeps what a scrape would see.
type gatherSink struct {
	t       *testing.T
	metrics *Metrics
	reg     *prometheus.Registry
	scrapes []map[string]float64
	ready   []error
}

func newGatherSink(t *testing.T) *gatherSink {
	m := NewMetrics()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(m); err != nil {
		t.Fatal(err)
	}
	return &gatherSink{t: t, metrics: m, reg: reg}
}

func (g *gatherSink) Observe(r Read) {
	g.metrics.Observe(r)
	g.scrapes = append(g.scrapes, gather(g.t, g.reg))
	g.ready = append(g.ready, g.metrics.Ready())
}

// gather is every series of reg as name{label="value",...} (labels sorted) → value.
func gather(t *testing.T, reg prometheus.Gatherer) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			sort.Strings(labels)
			v := m.GetGauge().GetValue() + m.GetCounter().GetValue() + m.GetUntyped().GetValue()
			out[mf.GetName()+"{"+strings.Join(labels, ",")+"}"] = v
		}
	}
	return out
}

// series are the keys of scrape of metric name (or that begin with prefix, when it has a
// '{'), sorted.
func series(scrape map[string]float64, prefix string) []string {
	if !strings.Contains(prefix, "{") {
		prefix += "{"
	}
	var out []string
	for k := range scrape {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// upgradeSnapshots are the snapshots of a simulated rolling upgrade of two default 1.36
// servers (no proxy filter) to 1.37, one per step.
func upgradeSnapshots(t *testing.T, t0 time.Time) []*snapshot.Snapshot {
	t.Helper()
	start, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: "1.36"}, {Name: "b", Version: "1.36"}}, t0)
	if err != nil {
		t.Fatal(err)
	}
	steps, err := simulate.UpgradePlan(start, "1.37", nil)
	if err != nil {
		t.Fatal(err)
	}
	snaps := []*snapshot.Snapshot{start}
	for _, st := range steps {
		next, err := simulate.Apply(snaps[len(snaps)-1], st)
		if err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, next)
	}
	return snaps
}

// TestMetricsRollingUpgrade runs the loop over a simulated rolling upgrade with the metrics
// as its sink: while a runs 1.37 and b 1.36 (no filter), b's at-risk gauge counts the GVRs
// only 1.37 serves, one window series and one not-found outcome series each; at the end
// none is left but the counter of windows opened. The names pass promlint.
func TestMetricsRollingUpgrade(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	snaps := upgradeSnapshots(t, t0)
	var reads []func() (*snapshot.Snapshot, error)
	for _, s := range snaps {
		reads = append(reads, ok(s))
	}
	sink := newGatherSink(t)
	l := &Loop{Read: scriptedReads(reads...), Clock: &stepClock{now: t0}, Interval: 10 * time.Second,
		Total: time.Duration(len(snaps)) * 10 * time.Second, Sink: sink, Emit: func(EventDoc) error { return nil }}
	if _, err := l.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(sink.scrapes) < len(snaps) {
		t.Fatalf("%d reads reported, want at least %d", len(sink.scrapes), len(snaps))
	}
	first := sink.scrapes[0]
	for _, want := range []string{
		`mvpctl_apiserver_up{server="a"}`, `mvpctl_apiserver_up{server="b"}`, `mvpctl_last_read_success{}`, `mvpctl_reads_total{result="ok"}`,
		`mvpctl_apiserver_peers{server="a"}`, `mvpctl_apiserver_peers{server="b"}`,
	} {
		if first[want] != 1 {
			t.Errorf("first read: %s = %v, want 1", want, first[want])
		}
	}
	if got := series(first, "mvpctl_apiserver_peers_learned"); len(got) != 0 {
		t.Errorf("no server aggregates its peers' discovery (no filter), yet %q", got)
	}
	if got := series(first, "mvpctl_gvr_outcome"); len(got) != 0 {
		t.Errorf("two 1.36 servers serve the same: want no outcome series, got %q", got)
	}
	if first[`mvpctl_apiserver_gvrs_at_risk{outcome="not-found",server="b"}`] != 0 || len(series(first, "mvpctl_apiserver_gvrs_at_risk")) != 4 {
		t.Errorf("first read: want at-risk 0 for both servers and outcomes, got %q", series(first, "mvpctl_apiserver_gvrs_at_risk"))
	}
	if sink.ready[0] != nil {
		t.Errorf("not ready after a complete read: %v", sink.ready[0])
	}

	// The step where a is back on 1.37 and b still runs 1.36.
	mixed := -1
	for i, sc := range sink.scrapes {
		if len(series(sc, `mvpctl_apiserver_info{emulated_version="",server="a",version="v1.37`)) == 1 && sc[`mvpctl_apiserver_up{server="a"}`] == 1 &&
			sc[`mvpctl_apiserver_up{server="b"}`] == 1 && len(series(sc, `mvpctl_apiserver_info{emulated_version="",server="b",version="v1.36`)) == 1 {
			mixed = i
			break
		}
	}
	if mixed < 0 {
		t.Fatalf("no read with a on 1.37 and b on 1.36; info series: %q", series(sink.scrapes[len(sink.scrapes)-1], "mvpctl_apiserver_info"))
	}
	sc := sink.scrapes[mixed]
	atRisk := sc[`mvpctl_apiserver_gvrs_at_risk{outcome="not-found",server="b"}`]
	windows := series(sc, `mvpctl_window_open_seconds{group="storagemigration.k8s.io",outcome="not-found",reason="",resource="storageversionmigrations",server="b"`)
	notFound := 0
	for _, k := range series(sc, "mvpctl_gvr_outcome") {
		if strings.Contains(k, `outcome="not-found"`) && strings.Contains(k, `server="b"`) {
			notFound++
		}
	}
	if atRisk == 0 || float64(len(series(sc, "mvpctl_window_open_seconds"))) != atRisk || float64(notFound) != atRisk || len(windows) != 1 {
		t.Errorf("a on 1.37, b on 1.36: at risk on b %v, %d window series, %d not-found outcome series, storageversionmigrations window %q: want them equal, > 0, storagemigration among them",
			atRisk, len(series(sc, "mvpctl_window_open_seconds")), notFound, windows)
	}
	if got := sc[`mvpctl_windows_opened_total{outcome="not-found",server="b"}`]; got != atRisk {
		t.Errorf("windows opened on b: %v, want %v", got, atRisk)
	}
	for _, k := range series(sc, "mvpctl_gvr_outcome") {
		if strings.Contains(k, `server="a"`) && !strings.Contains(k, `outcome="local"`) {
			t.Errorf("a serves everything b does: %s", k)
		}
	}

	last := sink.scrapes[len(sink.scrapes)-1]
	if n := len(series(last, "mvpctl_window_open_seconds")) + len(series(last, "mvpctl_gvr_outcome")); n != 0 {
		t.Errorf("after the upgrade: %d window or outcome series left, want none", n)
	}
	if last[`mvpctl_apiserver_gvrs_at_risk{outcome="not-found",server="b"}`] != 0 || last[`mvpctl_windows_opened_total{outcome="not-found",server="b"}`] != atRisk {
		t.Errorf("after the upgrade: at risk %v, opened %v: want 0, %v",
			last[`mvpctl_apiserver_gvrs_at_risk{outcome="not-found",server="b"}`], last[`mvpctl_windows_opened_total{outcome="not-found",server="b"}`], atRisk)
	}
	problems, err := testutil.GatherAndLint(sink.reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
}

// TestMetricsReadFailures: a first read that fails is counted by cause and retried, /readyz
// is not ready until a read completes; a later read that gets nothing counts every server down
// and is not ready; a read that cannot list the leases changes nothing but its counters. No
// error text (which may carry anything the server said) is a label.
func TestMetricsReadFailures(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	plane := steadyPlane(t)
	refused := errors.New(`Get "https://10.0.0.1:6443/version": dial tcp 10.0.0.1:6443: connect: connection refused (token sha256~secret)`)
	sink := newGatherSink(t)
	l := &Loop{Read: scriptedReads(fails(refused), fails(context.DeadlineExceeded), ok(plane), fails(refused),
		fails(fmt.Errorf("%w: cannot list the identity leases", ErrNoObservation)), ok(plane)),
		Clock: &stepClock{now: t0}, Interval: time.Second, Total: 5500 * time.Millisecond, RetryFirstRead: true,
		Sink: sink, Emit: func(EventDoc) error { return nil }}
	if _, err := l.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(sink.scrapes) != 6 {
		t.Fatalf("%d reads reported, want 6", len(sink.scrapes))
	}
	var ready []string
	for _, r := range sink.ready {
		ready = append(ready, fmt.Sprint(r == nil))
	}
	if got := strings.Join(ready, " "); got != "false false true false false true" {
		t.Errorf("ready after each read: %s; want false false true false false true", got)
	}
	if err := sink.ready[0]; err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("not ready, first read: %v; want the read's error", err)
	}
	sc := sink.scrapes[0]
	if sc[`mvpctl_read_errors_total{cause="connection-refused"}`] != 1 || sc[`mvpctl_last_read_success{}`] != 0 || len(series(sc, "mvpctl_apiserver_up")) != 0 {
		t.Errorf("after a first read that failed: %v", sc)
	}
	if _, ok := sc[`mvpctl_last_successful_read_timestamp_seconds{}`]; ok {
		t.Error("a last successful read before any")
	}
	if got := sink.scrapes[1][`mvpctl_read_errors_total{cause="timeout"}`]; got != 1 {
		t.Errorf("timeouts counted: %v, want 1", got)
	}
	down := sink.scrapes[3]
	if down[`mvpctl_apiserver_up{server="a"}`] != 0 || down[`mvpctl_apiserver_read_errors_total{cause="connection-refused",server="a"}`] != 1 ||
		down[`mvpctl_reads_total{result="failed"}`] != 3 || down[`mvpctl_last_successful_read_timestamp_seconds{}`] != float64(t0.Add(2*time.Second).Unix()) {
		t.Errorf("after a read that got nothing: up %v, a's read errors %v, failed reads %v, last success %v",
			down[`mvpctl_apiserver_up{server="a"}`], down[`mvpctl_apiserver_read_errors_total{cause="connection-refused",server="a"}`],
			down[`mvpctl_reads_total{result="failed"}`], down[`mvpctl_last_successful_read_timestamp_seconds{}`])
	}
	noObs := sink.scrapes[4]
	if noObs[`mvpctl_read_errors_total{cause="leases-not-listed"}`] != 1 || noObs[`mvpctl_apiserver_read_errors_total{cause="connection-refused",server="a"}`] != 1 {
		t.Errorf("a read that learned nothing: %v", noObs)
	}
	// Every apiserver gone: the last read reached none of them, whatever state it keeps.
	for _, k := range series(noObs, "mvpctl_apiserver_up") {
		if noObs[k] != 0 {
			t.Errorf("after a read that reached no server: %s %v, want 0", k, noObs[k])
		}
	}
	if len(series(noObs, "mvpctl_apiserver_up")) != len(plane.Servers) {
		t.Errorf("after a read that reached no server: %v, want every server's up", series(noObs, "mvpctl_apiserver_up"))
	}
	if up := series(sink.scrapes[5], "mvpctl_apiserver_up"); len(up) == 0 || sink.scrapes[5][up[0]] != 1 {
		t.Errorf("after the next read that got the plane: %v, want up", up)
	}
	for _, sc := range sink.scrapes {
		for k := range sc {
			if strings.Contains(k, "secret") || strings.Contains(k, "10.0.0.1") {
				t.Errorf("an error's text in a label: %s", k)
			}
		}
	}
}

// TestMetricsUpWhenNothingRead: every apiserver gone right after a read that got the plane —
// the next read cannot even list the leases — and mvpctl_apiserver_up is 0 for every server:
// the last read reached none, though the state it keeps (and /readyz's "not ready") stands.
func TestMetricsUpWhenNothingRead(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	plane := steadyPlane(t)
	sink := newGatherSink(t)
	l := &Loop{Read: scriptedReads(ok(plane), fails(fmt.Errorf("%w: cannot list the identity leases: connection refused", ErrNoObservation))),
		Clock: &stepClock{now: t0}, Interval: time.Second, Total: 1500 * time.Millisecond,
		Sink: sink, Emit: func(EventDoc) error { return nil }}
	if _, err := l.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(sink.scrapes) != 2 {
		t.Fatalf("%d reads reported, want 2", len(sink.scrapes))
	}
	for i, want := range []float64{1, 0} {
		up := series(sink.scrapes[i], "mvpctl_apiserver_up")
		if len(up) != len(plane.Servers) {
			t.Fatalf("read %d: %v, want every server's up", i+1, up)
		}
		for _, k := range up {
			if sink.scrapes[i][k] != want {
				t.Errorf("read %d: %s %v, want %v", i+1, k, sink.scrapes[i][k], want)
			}
		}
	}
	if sink.ready[1] == nil {
		t.Error("ready after a read that reached no server")
	}
}

// TestMetricsNotReadyWithoutLeases: a read whose identity leases could not be listed holds the
// servers found otherwise only; the exporter counts it partial and is not ready, as it cannot
// know the plane's other apiservers or the down ones; once they are listed it is ready again.
// A plane that does not record the lease list (nil) is ready, as before.
func TestMetricsNotReadyWithoutLeases(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	plane := steadyPlane(t)
	unlisted, listed := *plane, *plane
	unlisted.Cluster.IdentityLeases = &snapshot.IdentityLeases{Error: "403 Forbidden"}
	listed.Cluster.IdentityLeases = &snapshot.IdentityLeases{Listed: true}
	sink := newGatherSink(t)
	l := &Loop{Read: scriptedReads(ok(plane), ok(&unlisted), ok(&listed)),
		Clock: &stepClock{now: t0}, Interval: time.Second, Total: 2500 * time.Millisecond,
		Sink: sink, Emit: func(EventDoc) error { return nil }}
	res, err := l.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The watch itself is partial: one of its reads could not know the plane.
	if v := res.Verdict(); v.Class != report.Partial || res.Summary.LeasesNotListed != 1 ||
		v.Reason.String() != "no 404/503 window seen, but 1 of 3 reads could not list the identity leases in kube-system (other apiservers, and any that are down, were not known)" {
		t.Errorf("verdict %v %v, leasesNotListed %d", v.Class, v.Reason, res.Summary.LeasesNotListed)
	}
	if len(sink.scrapes) != 3 {
		t.Fatalf("%d reads reported, want 3", len(sink.scrapes))
	}
	const want = "the identity leases in kube-system could not be listed (403 Forbidden): other apiservers, and any that are down, are not known"
	if sink.ready[0] != nil || sink.ready[1] == nil || sink.ready[1].Error() != want || sink.ready[2] != nil {
		t.Errorf("ready = %v, want ready, not ready (%s), ready", sink.ready, want)
	}
	if n := sink.scrapes[1][`mvpctl_reads_total{result="partial"}`]; n != 1 {
		t.Errorf("partial reads after the unlisted leases: %v, want 1", n)
	}
}

// TestMetricsHostileLabels: label values copied from an apiserver's counters — a code with a
// newline that would forge a series of its own, a type that is not UTF-8 — are carried as
// mvpctl prints them (\x0a, \xff), and the exposition stays valid.
func TestMetricsHostileLabels(t *testing.T) {
	m := NewMetrics()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(m); err != nil {
		t.Fatal(err)
	}
	m.Observe(Read{Started: time.Unix(0, 0), Ended: time.Unix(1, 0), Traffic: []proxytraffic.Server{{Name: "kas-b", Read: true,
		Proxied:        []proxytraffic.Count{{GVR: "batch/v1/jobs", Code: "200\nFAKE 1\u2028", Count: 2}},
		EndpointErrors: []proxytraffic.Count{{GVR: "batch/v1/jobs", Type: "bad\xffutf8", Count: 1}},
		SyncErrors:     map[string]float64{"x\r\u200dy": 1}}}})
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, mf := range mfs {
		if _, err := expfmt.MetricFamilyToText(&b, mf); err != nil {
			t.Fatal(err)
		}
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	if _, err := parser.TextToMetricFamilies(bytes.NewReader(b.Bytes())); err != nil {
		t.Fatalf("not valid exposition: %v\n%s", err, b.String())
	}
	for _, want := range []string{`code="200\\x0aFAKE 1\\u2028"`, `type="bad\\xffutf8"`, `type="x\\x0d\\u200dy"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %s in\n%s", want, b.String())
		}
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, "FAKE") {
			t.Errorf("a line of its own: %q", line)
		}
	}
}

// TestMetricsTraffic: the counters' samples add up per server, GVR and code.
func TestMetricsTraffic(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	sink := newGatherSink(t)
	l := &Loop{Read: scriptedReads(ok(steadyPlane(t))), Clock: &stepClock{now: t0}, Interval: time.Second, Total: 2500 * time.Millisecond,
		Traffic: &countingSampler{}, Sink: sink, Emit: func(EventDoc) error { return nil }}
	if _, err := l.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	last := sink.scrapes[len(sink.scrapes)-1]
	if got := last[`mvpctl_peer_proxied_requests_total{code="200",group="batch",resource="jobs",server="a",version="v1"}`]; got != 2*float64(len(sink.scrapes)) {
		t.Errorf("proxied jobs: %v after %d samples of 2", got, len(sink.scrapes))
	}
	if got := last[`mvpctl_peer_discovery_fetches_total{server="a"}`]; got != 3*float64(len(sink.scrapes)) {
		t.Errorf("discovery fetches: %v after %d samples of 3", got, len(sink.scrapes))
	}
	if n := len(series(last, `mvpctl_peer_proxied_requests_total{code="200",group="batch",resource="jobs",server="b"`)); n != 0 {
		t.Error("b's counters were not read, yet counted")
	}
}

func TestServerErrorCause(t *testing.T) {
	for text, want := range map[string]string{
		vanishedError: CauseNoIdentityLease,
		`Get "https://10.0.0.2:6443/version": dial tcp 10.0.0.2:6443: connect: connection refused`:                       CauseConnectionRefused,
		`Get "https://a:6443/version": tls: failed to verify certificate: x509: certificate signed by unknown authority`: CauseTLS,
		`Get "https://a:6443/version": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`:       CauseTimeout,
		`GET /version: HTTP 401 Unauthorized`:                   CauseUnauthorized,
		`GET /apis: HTTP 403 Forbidden: user cannot get`:        CauseForbidden,
		`dial tcp: lookup kas-a on 10.96.0.10:53: no such host`: CauseDNS,
		`something else`: CauseOther,
	} {
		if got := ServerErrorCause(text); got != want {
			t.Errorf("%q: %s, want %s", text, got, want)
		}
	}
}

// TestMetricsSizeFiveServers: the /metrics of a five-server plane of five versions (1.33 to
// 1.37) with 80 GVRs — the exporter's part of it, without the Go and
// process collectors — is bounded by the plane: per-server series plus one outcome series per
// server and GVR not served everywhere. Its size is logged (docs/exporter.md).
func TestMetricsSizeFiveServers(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	var servers []simulate.ServerVersion
	for i, v := range []string{"1.33", "1.34", "1.35", "1.36", "1.37"} {
		servers = append(servers, simulate.ServerVersion{Name: fmt.Sprintf("kas-%d", i+1), Version: v})
	}
	plane, err := simulate.FromProfiles(servers, t0)
	if err != nil {
		t.Fatal(err)
	}
	// Eight more GVRs that only the newest serves: 80 in all.
	newest := &plane.Servers[len(plane.Servers)-1]
	for i := range 8 {
		newest.Resources = append(newest.Resources, snapshot.Resource{Group: "example.mvpctl.io", Version: "v1", Resource: fmt.Sprintf("widgets%d", i),
			Namespaced: true, Verbs: []string{"get", "list"}, Source: snapshot.SourceBuiltin})
	}
	all := map[snapshot.GVR]bool{}
	for _, s := range plane.Servers {
		for _, r := range s.Resources {
			all[r.GVR()] = true
		}
	}
	sink := newGatherSink(t)
	l := &Loop{Read: scriptedReads(ok(plane)), Clock: &stepClock{now: t0}, Interval: time.Second, Total: 1500 * time.Millisecond,
		Sink: sink, Emit: func(EventDoc) error { return nil }}
	if _, err := l.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	mfs, err := sink.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	enc := expfmt.NewEncoder(&text, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	last := sink.scrapes[len(sink.scrapes)-1]
	outcomes := len(series(last, "mvpctl_gvr_outcome"))
	rows := outcomes / len(servers)
	t.Logf("5 servers, %d GVRs, %d not served by all: %d mvpctl series (%d outcome series), /metrics %d bytes", len(all), rows, len(last), outcomes, text.Len())
	if len(all) != 80 || outcomes != rows*len(servers) || rows == 0 || rows >= len(all) {
		t.Errorf("%d outcome series for %d servers: want one per server for each GVR not served everywhere (%d GVRs in all)", outcomes, len(servers), len(all))
	}
	if perServer := len(last) - outcomes - len(series(last, "mvpctl_window_open_seconds")); perServer > 12*len(servers)+20 {
		t.Errorf("%d series besides the outcomes and windows: more than 12 per server and 20", perServer)
	}
}

// TestMetricsDownServerNotAssumed: a server that could not be read has no gate or filter
// series from its version's default (a restart mid-upgrade is not "no filter"); what was
// observed of it is kept.
func TestMetricsDownServerNotAssumed(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	plane := steadyPlane(t)
	down := *plane
	down.Servers = append([]snapshot.Server(nil), plane.Servers...)
	b := &down.Servers[1]
	b.Reachable, b.Error, b.PeerProxy, b.Resources = false, "connection refused", snapshot.PeerProxy{}, nil
	sink := newGatherSink(t)
	l := &Loop{Read: scriptedReads(ok(plane), ok(&down)), Clock: &stepClock{now: t0}, Interval: time.Second, Total: 1500 * time.Millisecond,
		Sink: sink, Emit: func(EventDoc) error { return nil }}
	if _, err := l.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	first, last := sink.scrapes[0], sink.scrapes[len(sink.scrapes)-1]
	if len(series(first, `mvpctl_apiserver_proxy_filter_installed{evidence="observed",server="b"`)) != 1 {
		t.Fatalf("b up: %q", series(first, "mvpctl_apiserver_proxy_filter_installed"))
	}
	if got := append(series(last, `mvpctl_apiserver_proxy_filter_installed{evidence="assumed",server="b"`),
		series(last, `mvpctl_apiserver_proxy_gate_enabled{evidence="assumed",server="b"`)...); len(got) != 0 || last[`mvpctl_apiserver_up{server="b"}`] != 0 {
		t.Errorf("b down: %q assumed", got)
	}
}

// TestMetricsAPIService: an aggregated APIService's availability as its group and version
// see it, 0 while every aggregator answers 503, 1 again after; the window of its 503 counted
// per server.
func TestMetricsAPIService(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	state := func(status string) *snapshot.Snapshot {
		s := steadyPlane(t)
		s.Cluster.AggregatedGroupVersions = []string{"metrics.k8s.io/v1beta1"}
		s.Cluster.ListsRead = &snapshot.ListsRead{CustomResourceDefinitions: true, APIServices: true}
		s.Cluster.APIServices = []snapshot.APIService{{Name: "v1beta1.metrics.k8s.io", Group: "metrics.k8s.io", Version: "v1beta1",
			Service:   &snapshot.ServiceReference{Namespace: "kube-system", Name: "metrics-server", Port: 443},
			Available: &snapshot.APIServiceCondition{Status: status, Reason: "FailedDiscoveryCheck"}}}
		return s
	}
	sink := newGatherSink(t)
	l := &Loop{Read: scriptedReads(ok(state("True")), ok(state("False")), ok(state("True"))), Clock: &stepClock{now: t0},
		Interval: time.Second, Total: 2500 * time.Millisecond, Sink: sink, Emit: func(EventDoc) error { return nil }}
	if _, err := l.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	const key = `mvpctl_apiservice_available{apiservice="v1beta1.metrics.k8s.io",group="metrics.k8s.io",version="v1beta1"}`
	var got []string
	for _, sc := range sink.scrapes {
		v, ok := sc[key]
		got = append(got, fmt.Sprintf("%v/%v", v, ok))
	}
	if strings.Join(got, " ") != "1/true 0/true 1/true" {
		t.Errorf("available after each read: %s; want 1 0 1", strings.Join(got, " "))
	}
	if n := sink.scrapes[1][`mvpctl_apiserver_gvrs_at_risk{outcome="unavailable",server="a"}`]; n == 0 {
		t.Errorf("the aggregator's 503 is no window on a: %v", series(sink.scrapes[1], "mvpctl_window_open_seconds"))
	}
}
