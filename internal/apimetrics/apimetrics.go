// Package apimetrics reads the peer-proxy metric families of a kube-apiserver's /metrics
// (docs/behaviour.md §9): the one parser of the Prometheus text format that probe (what a
// server proxied during a run) and discover (why a server has not learned its peers) use.
package apimetrics

import (
	"bufio"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
)

// The peer-proxy metric families.
const (
	// Rerouted counts requests a server proxied to a peer, by final status code (and, from
	// 1.36, group/version/resource; peer-discovery fetches carry empty ones).
	Rerouted = "apiserver_rerouted_request_total"
	// PeerProxyErrors (1.36+) counts endpoint-resolution failures (503s that are not in
	// Rerouted) by type and group/version/resource.
	PeerProxyErrors = "apiserver_peer_proxy_errors_total"
	// PeerDiscoverySyncErrors (1.36+) counts failed peer-discovery syncs by type.
	PeerDiscoverySyncErrors = mvp.PeerDiscoverySyncErrorsMetric
)

// MaxLines bounds how much of /metrics is scanned: a server exports tens of thousands of
// lines, and a body that never ends must not keep mvpctl reading.
const MaxLines = 2_000_000

// Series maps a label set (LabelKey) to its value.
type Series map[string]float64

// Sample is one read of /metrics: the series of each family asked for.
type Sample map[string]Series

// Parse reads the Prometheus text format and keeps the samples of families (every family
// asked for is in the result, empty if absent). Values of one label set are summed.
func Parse(r io.Reader, families ...string) (Sample, error) {
	s := Sample{}
	for _, f := range families {
		s[f] = Series{}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 0; n < MaxLines && sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		for _, f := range families {
			if !strings.HasPrefix(line, f) {
				continue
			}
			if labels, value, ok := ParseSample(line[len(f):]); ok {
				s[f][LabelKey(labels)] += value
			}
			break
		}
	}
	return s, sc.Err()
}

// SumBy sums a family's series by the value of one label.
func (s Series) SumBy(label string) map[string]float64 {
	out := map[string]float64{}
	for k, v := range s {
		out[ParseLabelKey(k)[label]] += v
	}
	return out
}

// ParseSample parses what follows a metric name: `{a="b",c="d"} 12` or ` 12` (an optional
// timestamp follows).
func ParseSample(s string) (map[string]string, float64, bool) {
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

// LabelKey is a canonical string of a label set: sorted k=v joined by commas.
func LabelKey(labels map[string]string) string {
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

// ParseLabelKey reverses LabelKey.
func ParseLabelKey(k string) map[string]string {
	out := map[string]string{}
	if k == "" {
		return out
	}
	labels, _, ok := ParseSample("{" + k + "} 0")
	if !ok {
		return out
	}
	return labels
}

// Delta is one series' increase between two samples.
type Delta struct {
	Labels map[string]string `json:"labels"`
	Before float64           `json:"before"`
	After  float64           `json:"after"`
	Delta  float64           `json:"delta"`
}

// Deltas lists the series that changed between before and after, sorted by labels.
func Deltas(before, after Series) []Delta {
	var keys []string
	for k, v := range after {
		if v != before[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := make([]Delta, 0, len(keys))
	for _, k := range keys {
		out = append(out, Delta{Labels: ParseLabelKey(k), Before: before[k], After: after[k], Delta: after[k] - before[k]})
	}
	return out
}
