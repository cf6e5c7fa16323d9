package discover

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/internal/apimetrics"
)

// TestSyncErrorsByType: the counter summed per type (series without one left out, a longer
// name sharing the prefix not read); a malformed sample of the family is an error, not a
// silently skipped line.
func TestSyncErrorsByType(t *testing.T) {
	text := `# HELP apiserver_peer_discovery_sync_errors_total ...
# TYPE apiserver_peer_discovery_sync_errors_total counter
apiserver_peer_discovery_sync_errors_total{type="fetch_discovery"} 3
apiserver_peer_discovery_sync_errors_total{type="hostport_resolution",zone="x"} 1e+00
apiserver_peer_discovery_sync_errors_total{type="hostport_resolution",zone="y"} 2
apiserver_peer_discovery_sync_errors_total{zone="x"} 1
apiserver_peer_discovery_sync_errors_total_other{type="lease_list"} 9
`
	m, err := apimetrics.Parse(strings.NewReader(text), syncErrorsMetric)
	if err != nil {
		t.Fatal(err)
	}
	got := m[syncErrorsMetric].SumBy("type")
	delete(got, "")
	want := map[string]float64{"fetch_discovery": 3, "hostport_resolution": 3}
	if len(got) != len(want) || got["fetch_discovery"] != 3 || got["hostport_resolution"] != 3 {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, bad := range []string{
		`apiserver_peer_discovery_sync_errors_total{type="lease_list"}`,
		`apiserver_peer_discovery_sync_errors_total{type="lease_list"} NaNish`,
	} {
		if _, err := apimetrics.Parse(strings.NewReader(text+bad+"\n"), syncErrorsMetric); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestDialAdvertised(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	open := l.Addr().String()
	if ok, why := dialAdvertised(context.Background(), open); !ok {
		t.Errorf("listening address: %s", why)
	}
	l.Close()
	if ok, why := dialAdvertised(context.Background(), open); ok || why == "" {
		t.Errorf("closed address accepted a connection (%q)", why)
	}
}
