package promevidence

import (
	"context"
	"testing"
	"time"
)

// BenchmarkRead: the cost on mvpctl's side of the three queries of a read (the answers are
// encoded once by the fake, so the figures are the client's: HTTP, decoding, checking the
// counts). A 5-apiserver plane with 400 non-zero request series each (2,000 series); a store
// holding 100 such clusters (a Thanos Query over a fleet) with a selector, which the store
// applies; and the same store without one, whose answer holds 100 × the series.
func BenchmarkRead(b *testing.B) {
	for _, bc := range []struct {
		name     string
		clusters int
		selector string
	}{
		{"plane-5-apiservers", 1, ""},
		{"store-100-clusters-selector", 100, `cluster="c42"`},
		{"store-100-clusters-no-selector", 100, ""},
	} {
		b.Run(bc.name, func(b *testing.B) {
			f := &fakeProm{oldest: readAt.Add(-30 * 24 * time.Hour), counts: fleet(bc.clusters, 5, 400), cached: true}
			url := startFake(b, f)
			o := Options{URL: url, Selector: bc.selector, Window: 7 * 24 * time.Hour, MaxBytes: 1 << 30, Now: func() time.Time { return readAt }}
			if ev := Read(context.Background(), o); ev.Error != "" || len(ev.Counts) == 0 {
				b.Fatalf("read: %q, %d counts", ev.Error, len(ev.Counts))
			}
			b.ReportAllocs()
			b.ResetTimer()
			var n int
			for b.Loop() {
				n = len(Read(context.Background(), o).Counts)
			}
			b.ReportMetric(float64(n), "counts")
		})
	}
}
