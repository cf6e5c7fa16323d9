package route

import (
	"fmt"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// BenchmarkParseRequest is the baseline: the apiserver's own RequestInfoFactory on one path.
func BenchmarkParseRequest(b *testing.B) {
	for b.Loop() {
		if _, err := ParseRequest("GET", "/apis/batch/v1/namespaces/default/jobs/j1/status"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecide is one routing decision (proxied, with steps recorded) on a three-server
// snapshot. Compare with BenchmarkParseRequest.
func BenchmarkDecide(b *testing.B) {
	r := NewRouter(snap(server("a", "v1.37.1", all...), server("b", "v1.36.3", noBatch...), server("c", "v1.36.3", all...)))
	req, _ := ParseRequest("GET", "/apis/batch/v1/namespaces/default/jobs/j1/status")
	for b.Loop() {
		if _, err := r.Decide("b", req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTable builds the full routing table (--all) of the same snapshot.
func BenchmarkTable(b *testing.B) {
	r := NewRouter(snap(server("a", "v1.37.1", all...), server("b", "v1.36.3", noBatch...), server("c", "v1.36.3", all...)))
	for b.Loop() {
		r.Table(true)
	}
}

// BenchmarkTableScale builds the routing table of 5 servers × N GVRs (CRD-heavy clusters have
// tens of thousands), where every server lacks a different tenth: the cost per row must stay
// flat as N grows (no step scans a server's whole discovery per cell).
// scaleSnapshot is five servers and n GVRs; server s lacks every GVR i with i%10 == s, so
// half of the GVRs are not served everywhere and make rows.
func scaleSnapshot(n int) *snapshot.Snapshot {
	var servers []snapshot.Server
	for s := 0; s < 5; s++ {
		var gvrs []string
		for i := 0; i < n; i++ {
			if i%10 != s {
				gvrs = append(gvrs, fmt.Sprintf("g%d.example.com/v1/r%d", i%500, i))
			}
		}
		servers = append(servers, server(fmt.Sprintf("s%d", s), "v1.36.3", gvrs...))
	}
	return snap(servers...)
}

func BenchmarkTableScale(b *testing.B) {
	for _, n := range []int{1000, 5000, 20000, 100000} {
		b.Run(fmt.Sprintf("gvrs=%d", n), func(b *testing.B) {
			r := NewRouter(scaleSnapshot(n))
			b.ResetTimer()
			for b.Loop() {
				r.Table(false)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/gvr")
		})
	}
}
