package route

import "testing"

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
