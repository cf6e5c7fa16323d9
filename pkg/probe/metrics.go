package probe

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The peer-proxy metrics of docs/behaviour.md §9.
const (
	// MetricRerouted counts requests a server proxied to a peer, by final status code (and,
	// from 1.36, group/version/resource; peer-discovery fetches carry empty ones).
	MetricRerouted = "apiserver_rerouted_request_total"
	// MetricPeerProxyErrors (1.36+) counts endpoint-resolution failures (503s that are not
	// in MetricRerouted) by type and group/version/resource.
	MetricPeerProxyErrors = "apiserver_peer_proxy_errors_total"
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
type MetricDelta struct {
	Labels map[string]string `json:"labels"`
	Before float64           `json:"before"`
	After  float64           `json:"after"`
	Delta  float64           `json:"delta"`
}

// series maps a metric's label set (canonical string) to its value.
type series map[string]float64

// metricsSample is one read of /metrics: the two metric families.
type metricsSample struct {
	rerouted, errors series
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

// parseMetrics reads the Prometheus text format, keeping the two peer-proxy families.
func parseMetrics(r io.Reader) (*metricsSample, error) {
	m := &metricsSample{rerouted: series{}, errors: series{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		var target series
		var rest string
		switch {
		case strings.HasPrefix(line, MetricRerouted):
			target, rest = m.rerouted, line[len(MetricRerouted):]
		case strings.HasPrefix(line, MetricPeerProxyErrors):
			target, rest = m.errors, line[len(MetricPeerProxyErrors):]
		default:
			continue
		}
		labels, value, ok := parseSample(rest)
		if !ok {
			continue
		}
		target[labelKey(labels)] += value
	}
	return m, sc.Err()
}

// parseSample parses `{a="b",c="d"} 12` or ` 12` (an optional timestamp follows).
func parseSample(s string) (map[string]string, float64, bool) {
	labels := map[string]string{}
	if strings.HasPrefix(s, "{") {
		i := 1
		for {
			for i < len(s) && (s[i] == ' ' || s[i] == ',') {
				i++
			}
			if i < len(s) && s[i] == '}' {
				i++
				break
			}
			eq := strings.IndexByte(s[i:], '=')
			if eq < 0 {
				return nil, 0, false
			}
			name := strings.TrimSpace(s[i : i+eq])
			i += eq + 1
			if i >= len(s) || s[i] != '"' {
				return nil, 0, false
			}
			i++
			var val strings.Builder
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
					switch s[i] {
					case 'n':
						val.WriteByte('\n')
					default:
						val.WriteByte(s[i])
					}
					continue
				}
				val.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, 0, false
			}
			i++ // closing quote
			labels[name] = val.String()
		}
		s = s[i:]
	} else if s != "" && s[0] != ' ' && s[0] != '\t' {
		return nil, 0, false // another metric whose name starts with ours
	}
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return nil, 0, false
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return nil, 0, false
	}
	return labels, v, true
}

// labelKey is a canonical string of a label set: sorted k=v joined by commas.
func labelKey(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + strconv.Quote(labels[k])
	}
	return strings.Join(parts, ",")
}

// parseLabelKey reverses labelKey.
func parseLabelKey(k string) map[string]string {
	out := map[string]string{}
	if k == "" {
		return out
	}
	labels, _, ok := parseSample("{" + k + "} 0")
	if !ok {
		return out
	}
	return labels
}

// deltas lists the series that changed between before and after, sorted by labels.
func deltas(before, after series) []MetricDelta {
	var keys []string
	for k, v := range after {
		if v != before[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := make([]MetricDelta, 0, len(keys))
	for _, k := range keys {
		out = append(out, MetricDelta{Labels: parseLabelKey(k), Before: before[k], After: after[k], Delta: after[k] - before[k]})
	}
	return out
}

// evidence compares two samples.
func evidence(before, after *metricsSample) *MetricsEvidence {
	ev := &MetricsEvidence{Read: true}
	ev.Rerouted = deltas(before.rerouted, after.rerouted)
	for _, d := range ev.Rerouted {
		if _, hasResource := d.Labels["resource"]; hasResource && d.Labels["resource"] == "" {
			continue // 1.36+: a peer-discovery fetch, not a resource request
		}
		ev.ReroutedTotal += d.Delta
	}
	ev.PeerProxyErrors = deltas(before.errors, after.errors)
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
