package watch

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

var (
	descLeaseWatchUp = newDesc("lease_watch_up",
		"1 while the identity-lease watch is established, 0 from a failure until it works again (reads then come every interval only).")
	descLeaseWatchRestarts = newDesc("lease_watch_restarts_total",
		"Times the identity-lease watch failed (could not be established, broke, or its connection went quiet) and was started again after a backoff.")
	descLeaseWatchLastEvent = newDesc("lease_watch_last_event_timestamp_seconds",
		"When the identity-lease watch last heard from the server, in seconds since the epoch: a list, a change, or a watch request accepted (one every few seconds while it works); absent before the first.")
)

// LeaseWatchMetrics is the exporter's view of the identity-lease watch: whether it works, how
// often it failed, and when it last heard from the server. Safe for concurrent use.
type LeaseWatchMetrics struct {
	mu       sync.Mutex
	up       bool
	restarts float64
	last     time.Time
}

// Heard records that the lease watch heard from the server at at (it works).
func (m *LeaseWatchMetrics) Heard(at time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.up = true
	if at.After(m.last) {
		m.last = at
	}
}

// Failed records a failure of the lease watch: it is started again after its backoff.
func (m *LeaseWatchMetrics) Failed() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.up = false
	m.restarts++
}

// Describe implements prometheus.Collector.
func (m *LeaseWatchMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- descLeaseWatchUp
	ch <- descLeaseWatchRestarts
	ch <- descLeaseWatchLastEvent
}

// Collect implements prometheus.Collector.
func (m *LeaseWatchMetrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	defer m.mu.Unlock()
	up := 0.0
	if m.up {
		up = 1
	}
	ch <- prometheus.MustNewConstMetric(descLeaseWatchUp, prometheus.GaugeValue, up)
	ch <- prometheus.MustNewConstMetric(descLeaseWatchRestarts, prometheus.CounterValue, m.restarts)
	if !m.last.IsZero() {
		ch <- prometheus.MustNewConstMetric(descLeaseWatchLastEvent, prometheus.GaugeValue, float64(m.last.UnixNano())/1e9)
	}
}
