package apimetrics

import (
	"strings"
	"testing"
)

func TestParseAndDeltas(t *testing.T) {
	before, err := Parse(strings.NewReader(`# TYPE apiserver_rerouted_request_total counter
apiserver_rerouted_request_total{code="200",group="batch",resource="jobs",version="v1"} 1
apiserver_rerouted_request_total_extra{code="200"} 7
`), Rerouted, PeerProxyErrors)
	if err != nil {
		t.Fatal(err)
	}
	after, err := Parse(strings.NewReader(`apiserver_rerouted_request_total{code="200",group="batch",resource="jobs",version="v1"} 4
apiserver_rerouted_request_total{code="200",group="",resource="",version=""} 2
apiserver_peer_proxy_errors_total{type="endpoint_resolution"} 1 1700000000000
`), Rerouted, PeerProxyErrors)
	if err != nil {
		t.Fatal(err)
	}
	if len(before[PeerProxyErrors]) != 0 || len(before[Rerouted]) != 1 {
		t.Fatalf("before: %v (a longer metric name sharing the prefix must not count)", before)
	}
	d := Deltas(before[Rerouted], after[Rerouted])
	if len(d) != 2 || d[0].Labels["resource"] != "" || d[0].Delta != 2 || d[1].Delta != 3 {
		t.Errorf("deltas %+v", d)
	}
	if got := after[PeerProxyErrors].SumBy("type"); got["endpoint_resolution"] != 1 {
		t.Errorf("errors by type %v", got)
	}
}
