package replay

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// A snapshot's counts that are not counts are never evidence: the server's counters are a
// source not read, its error names the value, and no client is taken from them.
func TestRequestCountEvidenceRefusesBadCounts(t *testing.T) {
	read := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	before, after := read.Add(-time.Hour), read.Add(10*time.Minute)
	list := func(n int64) snapshot.RequestCount {
		return snapshot.RequestCount{Group: "storage.k8s.io", Version: "v1beta1", Resource: "volumeattributesclasses", Verb: "LIST", Count: n}
	}
	get := list(math.MaxInt64)
	get.Verb = "GET"
	tests := []struct {
		name    string
		rc      snapshot.RequestCounts
		wantErr string // "" when the counters are read
	}{
		{"good counts read", snapshot.RequestCounts{ReadAt: read, StartedAt: &before, Counts: []snapshot.RequestCount{list(3)}}, ""},
		{"a negative count", snapshot.RequestCounts{ReadAt: read, StartedAt: &before, Counts: []snapshot.RequestCount{list(-2)}}, "count -2 of LIST storage.k8s.io/v1beta1/volumeattributesclasses is negative"},
		{"the smallest int64", snapshot.RequestCounts{ReadAt: read, StartedAt: &before, Counts: []snapshot.RequestCount{list(math.MinInt64)}}, "-9223372036854775808 of LIST"},
		{"a start after the read", snapshot.RequestCounts{ReadAt: read, StartedAt: &after, Counts: []snapshot.RequestCount{list(3)}}, "is 10m0s after the read"},
		{"counts of one GVR that overflow", snapshot.RequestCounts{ReadAt: read, StartedAt: &before, Counts: []snapshot.RequestCount{list(5), get}}, "add up past the largest count"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rc := tc.rc
			snap := &snapshot.Snapshot{Servers: []snapshot.Server{{Name: "kas-a", Reachable: true, Requests: &rc}}}
			ev := RequestCountEvidence(snap)
			src := ev.Sources[0]
			if tc.wantErr == "" {
				if !src.Read || len(ev.Clients) != 1 {
					t.Fatalf("not read (%q) or clients %v", src.Error, ev.Clients)
				}
				return
			}
			if src.Read || !strings.Contains(src.Error, tc.wantErr) {
				t.Fatalf("read %v, error %q: want not read, saying %q", src.Read, src.Error, tc.wantErr)
			}
			if len(ev.Clients) != 0 {
				t.Fatalf("clients taken from counts refused: %v", ev.Clients)
			}
			if ev.Covers() {
				t.Fatal("refused counters cover the GVRs")
			}
		})
	}
}

// A Prometheus read recorded with counts that are not counts is not evidence either.
func TestPrometheusEvidenceRefusesBadCounts(t *testing.T) {
	read := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	oldest, later := read.Add(-8*24*time.Hour), read.Add(time.Hour)
	count := func(n int64) snapshot.PrometheusCount {
		return snapshot.PrometheusCount{Instance: "10.0.0.1:6443", RequestCount: snapshot.RequestCount{Group: "storage.k8s.io", Version: "v1beta1", Resource: "volumeattributesclasses", Verb: "LIST", Count: n}}
	}
	for _, tc := range []struct {
		name    string
		pe      snapshot.PrometheusEvidence
		wantErr string
	}{
		{"good", snapshot.PrometheusEvidence{ReadAt: read, OldestSample: &oldest, Counts: []snapshot.PrometheusCount{count(30)}}, ""},
		{"negative", snapshot.PrometheusEvidence{ReadAt: read, OldestSample: &oldest, Counts: []snapshot.PrometheusCount{count(-30)}}, "count -30 of LIST storage.k8s.io/v1beta1/volumeattributesclasses"},
		{"overflow", snapshot.PrometheusEvidence{ReadAt: read, OldestSample: &oldest, Counts: []snapshot.PrometheusCount{count(math.MaxInt64), count(2)}}, "a sum past the largest"},
		{"oldest sample after the read", snapshot.PrometheusEvidence{ReadAt: read, OldestSample: &later, Counts: []snapshot.PrometheusCount{count(3)}}, "after the read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pe := tc.pe
			ev := PrometheusEvidence(&pe)
			src := ev.Sources[0]
			if tc.wantErr == "" {
				if !src.Read || len(ev.Clients) != 1 {
					t.Fatalf("not read (%q) or clients %v", src.Error, ev.Clients)
				}
				return
			}
			if src.Read || !strings.Contains(src.Error, tc.wantErr) || len(ev.Clients) != 0 {
				t.Fatalf("read %v, error %q, clients %v: want not read, saying %q", src.Read, src.Error, ev.Clients, tc.wantErr)
			}
		})
	}
}
