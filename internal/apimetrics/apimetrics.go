// Package apimetrics reads metric families of a kube-apiserver's /metrics (the peer-proxy
// families of docs/behaviour.md §9, whose names pkg/mvp holds) for probe (what a server
// proxied during a run), traffic and watch (the counters over time) and discover (why a server
// has not learned its peers). The Prometheus text format is parsed by
// github.com/prometheus/common/expfmt.
package apimetrics

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// The bounds of one read of /metrics, each an error naming it when passed (a server's
// /metrics is never cut short silently). A kube-apiserver exports tens of thousands of lines,
// tens of MiB; the families mvpctl reads (the peer-proxy counters) hold a few hundred series.
// Lines outside the families asked for are only scanned, not stored, so MaxBytes costs time,
// not memory; MaxSeries bounds what is stored and parsed (2 million series once took 2.8 GB).
const (
	MaxBytes  = 256 << 20
	MaxLines  = 2_000_000
	MaxSeries = 50_000
)

// Series maps a label set (LabelKey) to its value.
type Series map[string]float64

// Sample is one read of /metrics: the series of each family asked for.
type Sample map[string]Series

// Parse reads the Prometheus text format and keeps the samples of families (every family
// asked for is in the result, empty if absent). Values of one label set are summed.
//
// Only the lines of the families asked for (their samples and # TYPE lines) reach the
// parser: an apiserver exports tens of thousands of series, nearly all histogram buckets,
// and expfmt would build every one of them.
func Parse(r io.Reader, families ...string) (Sample, error) {
	s := Sample{}
	for _, f := range families {
		s[f] = Series{}
	}
	var kept bytes.Buffer
	body := &io.LimitedReader{R: r, N: MaxBytes + 1}
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	lines, series := 0, 0
	for sc.Scan() {
		if lines++; lines > MaxLines {
			return s, fmt.Errorf("more than %d lines: not read (a kube-apiserver exports tens of thousands)", MaxLines)
		}
		line := bytes.TrimSpace(sc.Bytes())
		if ofFamily(line, families) {
			if series++; series > MaxSeries {
				return s, fmt.Errorf("more than %d series of %s: not read (a kube-apiserver exports a few hundred)", MaxSeries, strings.Join(families, ", "))
			}
			kept.Write(line)
			kept.WriteByte('\n')
		}
	}
	if body.N <= 0 {
		return s, fmt.Errorf("larger than %d MiB: not read (a kube-apiserver exports tens of MiB)", MaxBytes>>20)
	}
	if err := sc.Err(); err != nil {
		return s, err
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	parsed, err := parser.TextToMetricFamilies(&kept)
	if err != nil {
		return s, err
	}
	for _, f := range families {
		mf := parsed[f]
		if mf == nil {
			continue
		}
		for _, m := range mf.GetMetric() {
			v, ok := value(mf.GetType(), m)
			if !ok {
				continue
			}
			labels := make(map[string]string, len(m.GetLabel()))
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			s[f][LabelKey(labels)] += v
		}
	}
	return s, nil
}

// ofFamily reports whether a trimmed line is a sample or the # TYPE line of one of families:
// the name followed by a label set or a blank, so that a longer name sharing the prefix
// (name_created, name_extra) is not taken.
func ofFamily(line []byte, families []string) bool {
	line, typeLine := bytes.CutPrefix(line, []byte("# TYPE "))
	if !typeLine && len(line) > 0 && line[0] == '#' {
		return false
	}
	for _, f := range families {
		if rest, ok := bytes.CutPrefix(line, []byte(f)); ok && len(rest) > 0 && (rest[0] == '{' || rest[0] == ' ' || rest[0] == '\t') {
			return true
		}
	}
	return false
}

// value is a sample's value for the kinds of family that have one.
func value(t dto.MetricType, m *dto.Metric) (float64, bool) {
	switch t {
	case dto.MetricType_COUNTER:
		return m.GetCounter().GetValue(), true
	case dto.MetricType_GAUGE:
		return m.GetGauge().GetValue(), true
	case dto.MetricType_UNTYPED:
		return m.GetUntyped().GetValue(), true
	}
	return 0, false
}

// SumBy sums a family's series by the value of one label.
func (s Series) SumBy(label string) map[string]float64 {
	out := map[string]float64{}
	for k, v := range s {
		out[ParseLabelKey(k)[label]] += v
	}
	return out
}

// LabelKey is a canonical string of a label set: its pairs sorted by name, written as in
// the text format's braces (name="value",...; a backslash, a quote and a newline escaped).
func LabelKey(labels map[string]string) string {
	names := slices.Sorted(maps.Keys(labels))
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(n)
		b.WriteString(`="`)
		b.WriteString(labelValueEscaper.Replace(labels[n]))
		b.WriteByte('"')
	}
	return b.String()
}

// labelValueEscaper escapes a label value as the text format does.
var labelValueEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// ParseLabelKey reverses LabelKey (through expfmt, as a sample of a family named k).
func ParseLabelKey(k string) map[string]string {
	out := map[string]string{}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	parsed, err := parser.TextToMetricFamilies(strings.NewReader("k{" + k + "} 0\n"))
	if err != nil || parsed["k"] == nil || len(parsed["k"].GetMetric()) != 1 {
		return out
	}
	for _, l := range parsed["k"].GetMetric()[0].GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
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
