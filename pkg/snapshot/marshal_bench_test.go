package snapshot

import (
	"fmt"
	"testing"
	"time"
)

// countsSnapshot is the example with rows request-count rows on each server, as a live read of
// that many series writes them.
func countsSnapshot(b testing.TB, rows int) *Snapshot {
	s, err := LoadFile("../../examples/skew.yaml")
	if err != nil {
		b.Fatal(err)
	}
	for i := range s.Servers {
		rc := &RequestCounts{ReadAt: time.Date(2026, 11, 23, 9, 36, 29, 0, time.UTC)}
		for j := range rows {
			rc.Counts = append(rc.Counts, RequestCount{Group: fmt.Sprintf("g%03d.example.com", j%500), Version: "v1", Resource: fmt.Sprintf("r%06d", j), Verb: "LIST", Count: int64(j + 1)})
		}
		s.Servers[i].Requests = rc
	}
	return s
}

// BenchmarkMarshalCounts writes a snapshot of 40,000 request-count rows per server (under the
// /metrics series bound), YAML and JSON: docs/performance.md has the peak RSS of each.
func BenchmarkMarshalCounts(b *testing.B) {
	s := countsSnapshot(b, 40_000)
	for _, asJSON := range []bool{false, true} {
		b.Run(fmt.Sprintf("json=%v", asJSON), func(b *testing.B) {
			for range b.N {
				data, err := s.Marshal(asJSON)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(data)))
			}
		})
	}
}
