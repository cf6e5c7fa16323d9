package apimetrics

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkParse reads the three peer-proxy families out of a /metrics body the size of a
// busy kube-apiserver's: 60,000 histogram bucket lines of other families and 600 series of
// the wanted ones.
func BenchmarkParse(b *testing.B) {
	var body strings.Builder
	body.WriteString("# HELP apiserver_request_duration_seconds x\n# TYPE apiserver_request_duration_seconds histogram\n")
	for i := range 60000 {
		fmt.Fprintf(&body, "apiserver_request_duration_seconds_bucket{component=\"apiserver\",group=\"g%d\",resource=\"r%d\",scope=\"cluster\",subresource=\"\",verb=\"LIST\",version=\"v1\",le=\"%d\"} %d\n", i%40, i%300, i%20, i)
	}
	body.WriteString("# TYPE apiserver_rerouted_request_total counter\n")
	for i := range 600 {
		fmt.Fprintf(&body, "apiserver_rerouted_request_total{code=\"200\",group=\"g%d\",resource=\"r%d\",version=\"v1\"} %d\n", i%40, i, i)
	}
	text := body.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		s, err := Parse(strings.NewReader(text), "apiserver_rerouted_request_total", "apiserver_peer_proxy_errors_total", "apiserver_peer_discovery_sync_errors_total")
		if err != nil || len(s["apiserver_rerouted_request_total"]) != 600 {
			b.Fatal(err, len(s["apiserver_rerouted_request_total"]))
		}
	}
}
