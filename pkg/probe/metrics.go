package probe

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/internal/apimetrics"
)

// The peer-proxy metrics of docs/behaviour.md §9 (internal/apimetrics reads them).
const (
	MetricRerouted        = apimetrics.Rerouted
	MetricPeerProxyErrors = apimetrics.PeerProxyErrors
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

// fetchMetrics reads /metrics (streamed: a big apiserver's is tens of MiB). A 401/403 is not
// an error of the run: the note says what RBAC is missing.
func fetchMetrics(ctx context.Context, c *serverClient, timeout time.Duration) (*metricsSample, string) {
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := c.Open(rctx, "/metrics", "text/plain")
	if err != nil {
		return nil, "GET /metrics: " + describeErr(err, timeout)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusUnauthorized:
		return nil, fmt.Sprintf("GET /metrics: %d — not allowed to read metrics (grant get on nonResourceURLs /metrics); proxying is shown by the observations only", resp.StatusCode)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Sprintf("GET /metrics: HTTP %d", resp.StatusCode)
	}
	m, err := parseMetrics(resp.Body)
	if err != nil {
		return nil, "GET /metrics: " + describeErr(err, timeout)
	}
	return m, ""
}

// parseMetrics reads the two peer-proxy families of /metrics.
func parseMetrics(r io.Reader) (*metricsSample, error) {
	m, err := apimetrics.Parse(r, apimetrics.Rerouted, apimetrics.PeerProxyErrors)
	return &metricsSample{rerouted: m[apimetrics.Rerouted], errors: m[apimetrics.PeerProxyErrors]}, err
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
