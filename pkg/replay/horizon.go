package replay

import (
	"fmt"
	"strings"
	"time"
)

// The horizon of client evidence: a source shows that no client uses an API only as far back
// as it looks. Counters start at zero when their apiserver restarts, an audit log holds what
// it was kept for, Prometheus holds what it retained. The gate requires a look-back, the
// evidence window: a source covering less of it cannot show "no client".

// DefaultEvidenceWindow is the look-back required when none is given: a week holds the weekly
// jobs (reports, backups, CronJobs) that a day or an hour misses (docs/ci.md).
const DefaultEvidenceWindow = 7 * 24 * time.Hour

// Span is the time the source covers, and whether it is known: from the start of its
// counters (or its oldest sample, or its first event) to the read.
func (s EvidenceSource) Span() (time.Duration, bool) {
	if s.From == nil || s.To == nil || s.To.Before(*s.From) {
		return 0, false
	}
	return s.To.Sub(*s.From), true
}

// CoversWindow reports whether e covers the window: some kind of source that would show a client of
// any GVR (Covers) was read from every source of it, each covering at least window.
func (e *ClientEvidence) CoversWindow(window time.Duration) bool {
	for _, kind := range e.coveringKinds() {
		ok := true
		for _, s := range e.Sources {
			if s.Kind != kind {
				continue
			}
			if span, known := s.Span(); !s.Read || !known || span < window {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// coveringKinds are the kinds of the sources that would show a client of any GVR, each once,
// in the order first stated; a kind with a source not read is left out.
func (e *ClientEvidence) coveringKinds() []string {
	if e == nil {
		return nil
	}
	var kinds []string
	seen := map[string]bool{}
	for _, s := range e.Sources {
		if (s.AllGVRs || s.Kind == SourceRequestCounts) && !seen[s.Kind] {
			seen[s.Kind] = true
			kinds = append(kinds, s.Kind)
		}
	}
	var out []string
	for _, k := range kinds {
		read := true
		for _, s := range e.Sources {
			if s.Kind == k && !s.Read {
				read = false
			}
		}
		if read {
			out = append(out, k)
		}
	}
	return out
}

// SpansRead says how far back each source that would show a client of any GVR looked:
// "the request counters of kas-a 5s, kas-b 5s (restarted since?)".
func (e *ClientEvidence) SpansRead() string {
	var parts []string
	for _, kind := range e.coveringKinds() {
		var names []string
		for _, s := range e.Sources {
			if s.Kind != kind {
				continue
			}
			span, known := s.Span()
			if !known {
				names = append(names, s.Name+" (span unknown)")
				continue
			}
			names = append(names, s.Name+" "+SpanText(span))
		}
		parts = append(parts, kindText[kind]+" of "+strings.Join(names, ", "))
	}
	return strings.Join(parts, "; ")
}

// SourcesOf lists the sources of one kind, read or not, in the order stated.
func (e *ClientEvidence) SourcesOf(kind string) []EvidenceSource {
	if e == nil {
		return nil
	}
	var out []EvidenceSource
	for _, s := range e.Sources {
		if s.Kind == kind {
			out = append(out, s)
		}
	}
	return out
}

// kindText names each kind of source as a sentence says it.
var kindText = map[string]string{SourceRequestCounts: "the request counters", SourcePrometheus: "Prometheus", SourceManagedFields: "managedFields", SourceManifests: "manifests", SourceHelmReleases: "Helm releases"}

// TrafficSpan is the span of the replayed traffic (its first to last event), and whether it
// is known (a request list has no times).
func (r *Report) TrafficSpan() (time.Duration, bool) {
	if r == nil || r.From == nil || r.To == nil || r.To.Before(*r.From) {
		return 0, false
	}
	return r.To.Sub(*r.From), true
}

// TrafficSpanText says how far back the replayed traffic looks: "audit log a.log: 3m, first
// to last event".
func (r *Report) TrafficSpanText() string {
	span, ok := r.TrafficSpan()
	if !ok {
		return fmt.Sprintf("%s (%s): no event times, span unknown", r.Source, r.Format)
	}
	return fmt.Sprintf("%s (%s): %s, first to last event", r.Source, r.Format, SpanText(span))
}

// SpanText is a duration as people say it: 7d, 5h, 12m, 40s (rounded down).
func SpanText(d time.Duration) string { return spanText(d) }

// SourcePrometheus is what a Prometheus (or Thanos Query, Mimir) kept of every apiserver's
// apiserver_request_total: its span is from the oldest sample held to the query.
const SourcePrometheus = "prometheus"

// Kept names the Prometheus sources read with how far back each held samples: "Prometheus
// http://prom:9090 (oldest sample 8d before 2026-11-27T12:00:00Z)".
func (e *ClientEvidence) Kept() string {
	var names []string
	for _, s := range e.ReadSources() {
		if s.Kind != SourcePrometheus {
			continue
		}
		span := "span unknown"
		if d, ok := s.Span(); ok {
			span = "oldest sample " + SpanText(d) + " before " + s.To.UTC().Format(time.RFC3339)
		}
		names = append(names, "Prometheus "+s.Name+" ("+span+")")
	}
	return strings.Join(names, ", ")
}
