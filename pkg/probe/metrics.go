package probe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/internal/apimetrics"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// The peer-proxy metrics of docs/behaviour.md §9 (internal/apimetrics reads them).
const (
	MetricRerouted        = mvp.ReroutedMetric
	MetricPeerProxyErrors = mvp.PeerProxyErrorsMetric
)

// MetricsEvidence is what a server's /metrics says it proxied during the run.
type MetricsEvidence struct {
	// Read is false when /metrics could not be read before and after; Note says why.
	Read bool   `json:"read"`
	Note string `json:"note,omitempty"`
	// Rerouted is the increase of apiserver_rerouted_request_total, per series that changed.
	Rerouted []MetricDelta `json:"rerouted,omitempty"`
	// ReroutedTotal sums Rerouted over resource requests: on 1.36+ series without a resource
	// (peer-discovery fetches) are left out; before 1.36 they cannot be told apart.
	ReroutedTotal float64 `json:"reroutedTotal"`
	// PeerProxyErrors is the increase of apiserver_peer_proxy_errors_total (1.36+).
	PeerProxyErrors      []MetricDelta `json:"peerProxyErrors,omitempty"`
	PeerProxyErrorsTotal float64       `json:"peerProxyErrorsTotal"`
	// ExpectedRerouted is how many of the probe's requests to this server were observed
	// proxied (including transport 503s, which the counter includes); ExpectedEndpointErrors
	// how many got the endpoint-resolution 503. Other clients' traffic adds to the counters.
	ExpectedRerouted       int `json:"expectedRerouted"`
	ExpectedEndpointErrors int `json:"expectedEndpointErrors"`
}

// MetricDelta is one series' increase.
type MetricDelta = apimetrics.Delta

// metricsSample is one read of /metrics: the two metric families.
type metricsSample struct {
	rerouted, errors apimetrics.Series
}

// fetchMetrics reads the two peer-proxy families of /metrics. A 401/403 is not an error of
// the run: the note says what RBAC is missing.
func fetchMetrics(ctx context.Context, c *serverClient, timeout time.Duration) (*metricsSample, string) {
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	m, err := apimetrics.Fetch(rctx, c, mvp.ReroutedMetric, mvp.PeerProxyErrorsMetric)
	switch {
	case errors.Is(err, apimetrics.ErrForbidden):
		return nil, err.Error() + "; proxying is shown by the observations only"
	case errors.As(err, new(*apiclient.Error)):
		return nil, "GET /metrics: " + describeErr(err, timeout)
	case err != nil:
		return nil, err.Error() // Fetch's own, naming GET /metrics: a status or a body that does not parse
	}
	return &metricsSample{rerouted: m[mvp.ReroutedMetric], errors: m[mvp.PeerProxyErrorsMetric]}, ""
}

// parseMetrics reads the two peer-proxy families of /metrics.
func parseMetrics(r io.Reader) (*metricsSample, error) {
	m, err := apimetrics.Parse(r, mvp.ReroutedMetric, mvp.PeerProxyErrorsMetric)
	return &metricsSample{rerouted: m[mvp.ReroutedMetric], errors: m[mvp.PeerProxyErrorsMetric]}, err
}

// evidence compares two samples.
func evidence(before, after *metricsSample) *MetricsEvidence {
	ev := &MetricsEvidence{Read: true}
	ev.Rerouted = apimetrics.Deltas(before.rerouted, after.rerouted)
	for _, d := range ev.Rerouted {
		if _, hasResource := d.Labels["resource"]; hasResource && d.Labels["resource"] == "" {
			continue // 1.36+: a peer-discovery fetch, not a resource request
		}
		ev.ReroutedTotal += d.Delta
	}
	ev.PeerProxyErrors = apimetrics.Deltas(before.errors, after.errors)
	for _, d := range ev.PeerProxyErrors {
		ev.PeerProxyErrorsTotal += d.Delta
	}
	return ev
}

// CodesText summarises the rerouted increase of resource requests by code: "200:4,404:2".
func (ev *MetricsEvidence) CodesText() string {
	by := map[string]float64{}
	for _, d := range ev.Rerouted {
		if r, ok := d.Labels["resource"]; ok && r == "" {
			continue
		}
		by[d.Labels["code"]] += d.Delta
	}
	codes := make([]string, 0, len(by))
	for c := range by {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprintf("%s:%s", c, strconv.FormatFloat(by[c], 'f', -1, 64))
	}
	return strings.Join(parts, ",")
}

// readMetrics takes the "before" sample of every probed server.
func (p *prober) readMetrics(ctx context.Context) {
	p.forEach(func(ps *probedServer) {
		if ps.client == nil {
			return
		}
		m, note := fetchMetrics(ctx, ps.client, p.opts.RequestTimeout)
		if m == nil {
			ps.rep.Metrics = &MetricsEvidence{Note: note}
			return
		}
		ps.before = m
	})
}

// metricsEvidence takes the "after" samples and compares them with what was observed.
func (p *prober) metricsEvidence(ctx context.Context, rep *Report) {
	expected := map[*probedServer][2]int{}
	for _, ps := range p.servers {
		var rerouted, endpoint int
		for i := range rep.Results {
			r := &rep.Results[i]
			if r.Server != ps.srv.Name {
				continue
			}
			switch {
			case r.Observed.Outcome == mvp.Proxied:
				rerouted++
			case r.Observed.Outcome == mvp.Unavailable && r.Observed.Unavailable == mvp.Transport:
				rerouted++
			case r.Observed.Outcome == mvp.Unavailable && r.Observed.Unavailable == mvp.EndpointResolution:
				endpoint++
			case r.Observed.Outcome == mvp.NotFound && r.Predicted.Outcome == mvp.Proxied:
				rerouted++ // the peer's own 404
			}
			if r.Verdict == VerdictLoopViolation && r.Observed.ForcedLocal != nil {
				if r.Observed.ForcedLocal.Class == ClassUnavailableEndpoint {
					endpoint++
				} else {
					rerouted++
				}
			}
		}
		expected[ps] = [2]int{rerouted, endpoint}
	}
	after := map[*probedServer]*metricsSample{}
	read := func() {
		p.forEach(func(ps *probedServer) {
			if ps.client == nil || ps.before == nil {
				return
			}
			m, note := fetchMetrics(ctx, ps.client, p.opts.RequestTimeout)
			p.mu.Lock()
			defer p.mu.Unlock()
			if m == nil {
				ps.rep.Metrics = &MetricsEvidence{Note: note}
				return
			}
			after[ps] = m
		})
	}
	read()
	// The counters are incremented when the proxy handler returns, which can be just after
	// the client has the whole answer: give a short-counted server one more look.
	again := false
	for ps, m := range after {
		if ev := evidence(ps.before, m); int(ev.ReroutedTotal) < expected[ps][0] || int(ev.PeerProxyErrorsTotal) < expected[ps][1] {
			again = true
		}
	}
	if again {
		time.Sleep(500 * time.Millisecond)
		read()
	}
	for _, ps := range p.servers {
		m := after[ps]
		if m == nil {
			continue
		}
		ev := evidence(ps.before, m)
		ev.ExpectedRerouted, ev.ExpectedEndpointErrors = expected[ps][0], expected[ps][1]
		if v, err := snapshot.ParseVersion(ps.srv.Version); err == nil && !mvp.ReroutedMetricHasGVR(v) {
			ev.Note = "before 1.36 the counter has only a code label and also counts peer-discovery fetches"
		}
		ps.rep.Metrics = ev
		p.corroborate(ps, ev, rep)
	}
}

// corroborate checks loop-header violations against the server's per-GVR counters (1.36+):
// requests it forwarded despite the header were counted. A violation the counters cannot
// account for was the server answering by itself a GVR its discovery did not list (a stale
// snapshot): a mismatch, not a loop.
func (p *prober) corroborate(ps *probedServer, ev *MetricsEvidence, rep *Report) {
	perGVR := map[string]float64{}
	labelled := false
	for _, d := range ev.Rerouted {
		if _, ok := d.Labels["resource"]; ok {
			labelled = true
			g := snapshot.GVR{Group: d.Labels["group"], Version: d.Labels["version"], Resource: d.Labels["resource"]}
			perGVR[g.String()] += d.Delta
		}
	}
	for _, d := range ev.PeerProxyErrors {
		if _, ok := d.Labels["resource"]; ok {
			g := snapshot.GVR{Group: d.Labels["group"], Version: d.Labels["version"], Resource: d.Labels["resource"]}
			perGVR[g.String()] += d.Delta
		}
	}
	if !labelled && len(ev.Rerouted) > 0 {
		return // before 1.36: no per-GVR evidence
	}
	expectedNormal := map[string]float64{}
	violations := map[string][]*Result{}
	for i := range rep.Results {
		r := &rep.Results[i]
		if r.Server != ps.srv.Name {
			continue
		}
		switch {
		case r.Observed.Outcome == mvp.Proxied, r.Observed.Outcome == mvp.Unavailable,
			r.Observed.Outcome == mvp.NotFound && r.Predicted.Outcome == mvp.Proxied:
			expectedNormal[r.Name]++
		}
		if r.Verdict == VerdictLoopViolation {
			violations[r.Name] = append(violations[r.Name], r)
		}
	}
	for name, rs := range violations {
		extra := perGVR[name] - expectedNormal[name]
		for _, r := range rs {
			if extra >= 1 {
				r.Note += "; confirmed by " + MetricRerouted
				extra--
				continue
			}
			r.Verdict = VerdictMismatch
			r.Note = fmt.Sprintf("%s answered the request carrying the loop-prevention header with a handler, but its %s shows no forwarded request: it serves %s itself although its discovery in the snapshot does not list it (a stale snapshot?)", ps.srv.Name, MetricRerouted, name)
			r.Observed.Outcome = Combine(classOf(r.Observed.Normal), classOf(r.Observed.ForcedLocal)).Outcome
			r.Observed.Text = observedText(r.Observed.Outcome, r.Observed.Unavailable, nil)
		}
	}
}
