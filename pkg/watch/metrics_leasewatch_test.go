package watch

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestLeaseWatchMetrics: down and no last event before the watch heard anything; a failure
// counts a restart and is down until the watch hears from the server again.
func TestLeaseWatchMetrics(t *testing.T) {
	m := &LeaseWatchMetrics{}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m)
	check := func(want string) {
		t.Helper()
		if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
			t.Error(err)
		}
	}
	head := `# HELP mvpctl_lease_watch_restarts_total Times the identity-lease watch failed (could not be established, broke, or its connection went quiet) and was started again after a backoff.
# TYPE mvpctl_lease_watch_restarts_total counter
# HELP mvpctl_lease_watch_up 1 while the identity-lease watch is established, 0 from a failure until it works again (reads then come every interval only).
# TYPE mvpctl_lease_watch_up gauge
`
	last := `# HELP mvpctl_lease_watch_last_event_timestamp_seconds When the identity-lease watch last heard from the server, in seconds since the epoch: a list, a change, or a watch request accepted (one every few seconds while it works); absent before the first.
# TYPE mvpctl_lease_watch_last_event_timestamp_seconds gauge
`
	check(head + "mvpctl_lease_watch_restarts_total 0\nmvpctl_lease_watch_up 0\n")
	at := time.Date(2026, 11, 23, 12, 0, 0, 500_000_000, time.UTC)
	m.Heard(at)
	m.Failed()
	check(head + last + "mvpctl_lease_watch_last_event_timestamp_seconds 1.7954352005e+09\nmvpctl_lease_watch_restarts_total 1\nmvpctl_lease_watch_up 0\n")
	m.Heard(at.Add(-time.Second)) // out of order: the last stays the latest
	m.Heard(at.Add(2 * time.Second))
	check(head + last + "mvpctl_lease_watch_last_event_timestamp_seconds 1.7954352025e+09\nmvpctl_lease_watch_restarts_total 1\nmvpctl_lease_watch_up 1\n")
}
