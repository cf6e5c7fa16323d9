package watch

import (
	"context"
	"crypto/x509"
	"errors"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mvpctl/mvpctl/internal/textsafe"
	"github.com/mvpctl/mvpctl/pkg/basis"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// MetricsNamespace prefixes every metric of the exporter (docs/exporter.md lists them).
const MetricsNamespace = "mvpctl"

// Label cardinality is bounded by the plane, never by requests: servers (S), the GVRs not
// served by every reachable server (G), aggregated APIServices (A), and fixed sets (outcome,
// reason, cause, code, type). A GVR every reachable server serves itself has no series.
var (
	descServerUp = newDesc("apiserver_up",
		"1 if the apiserver answered the last read, 0 if it could not be read (every server, when the last read got nothing).", "server")
	descServerInfo = newDesc("apiserver_info",
		"Always 1: the apiserver's binary version and emulated version (the last known while it is down).", "server", "version", "emulated_version")
	descGate = newDesc("apiserver_proxy_gate_enabled",
		"1 if the UnknownVersionInteroperabilityProxy feature gate is on; evidence says whether it was observed or assumed from the version's default.", "server", "evidence")
	descFilter = newDesc("apiserver_proxy_filter_installed",
		"1 if the mixed-version proxy filter is installed (gate on and --peer-ca-file set); evidence says whether it was observed or assumed.", "server", "evidence")
	descPeersLearned = newDesc("apiserver_peers_learned",
		"Peers whose non-core GVRs the apiserver lists in its peer-aggregated /apis (1.35+; absent without that evidence).", "server")
	descPeers = newDesc("apiserver_peers",
		"Peers the apiserver holds in its peer-discovery cache by the rules (identity lease with a holder, gate on).", "server")
	descAtRisk = newDesc("apiserver_gvrs_at_risk",
		"GVRs some server serves that this apiserver answers with 404 (outcome=not-found) or 503 (outcome=unavailable): its open windows.", "server", "outcome")
	descOutcome = newDesc("gvr_outcome",
		"Always 1: the predicted outcome of a list of the GVR on the apiserver (local, proxied, not-found, unavailable; reason: which 503). Only GVRs not served by every reachable server.", "server", "group", "version", "resource", "outcome", "reason")
	descWindowAge = newDesc("window_open_seconds",
		"How long the window has been open at the last read: the apiserver answers 404/503 for a GVR some server serves.", "server", "group", "version", "resource", "outcome", "reason")
	descAPIService = newDesc("apiservice_available",
		"1 if the aggregated APIService's Available condition is True, 0 if every apiserver's aggregator answers its group/version with 503.", "apiservice", "group", "version")
	descLastRead = newDesc("last_read_timestamp_seconds",
		"When the last read of the plane ended, in seconds since the epoch.")
	descLastOK = newDesc("last_successful_read_timestamp_seconds",
		"When the last read that got a snapshot ended, in seconds since the epoch (absent before the first).")
	descLastSuccess = newDesc("last_read_success",
		"1 if the last read of the plane got a snapshot, 0 if it got nothing.")
	descLastDuration = newDesc("last_read_duration_seconds",
		"How long the last read of the plane took, the counters' sample included.")
)

func newDesc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(prometheus.BuildFQName(MetricsNamespace, "", name), help, labels, nil)
}

// Read error causes (mvpctl_read_errors_total{cause}, mvpctl_apiserver_read_errors_total).
const (
	CauseNoObservation     = "leases-not-listed"
	CauseConnectionRefused = "connection-refused"
	CauseTimeout           = "timeout"
	CauseTLS               = "tls"
	CauseUnauthorized      = "unauthorized"
	CauseForbidden         = "forbidden"
	CauseNoIdentityLease   = "no-identity-lease"
	CauseDNS               = "dns"
	CauseOther             = "other"
)

// Metrics is the exporter's view of a watch: a Sink that keeps the state of the last read for
// prometheus to collect, and counters over the watch. Register it with a registry; it is safe
// for concurrent Observe and Collect.
type Metrics struct {
	mu        sync.Mutex
	last      Read
	lastOK    time.Time
	everRead  bool
	reachable int
	// opened remembers the open windows by key and opening time, to count new ones.
	opened map[windowKey]time.Time
	// readiness, when enabled, runs the upgrade gate on the reads (readiness.go).
	readiness *readinessState

	reads          *prometheus.CounterVec
	readErrors     *prometheus.CounterVec
	serverErrors   *prometheus.CounterVec
	windowsOpened  *prometheus.CounterVec
	proxied        *prometheus.CounterVec
	proxyErrors    *prometheus.CounterVec
	syncErrors     *prometheus.CounterVec
	discoveryFetch *prometheus.CounterVec
}

type windowKey struct{ server, gvr string }

// NewMetrics is an empty sink: no read yet.
func NewMetrics() *Metrics {
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: MetricsNamespace, Name: name, Help: help}, labels)
	}
	return &Metrics{
		opened: map[windowKey]time.Time{},
		reads: counter("reads_total",
			"Reads of the plane, by result: ok (every server read), partial (some could not be read, or the identity leases could not be listed), failed (nothing read: every server counted down), no-observation (the leases could not be listed: the last state stands).", "result"),
		readErrors: counter("read_errors_total",
			"Reads of the plane that got nothing, by cause.", "cause"),
		serverErrors: counter("apiserver_read_errors_total",
			"Reads in which the apiserver could not be read, by cause.", "server", "cause"),
		windowsOpened: counter("windows_opened_total",
			"Windows opened: the apiserver began answering 404/503 for a GVR some server serves (also those that closed between two scrapes).", "server", "outcome"),
		proxied: counter("peer_proxied_requests_total",
			"Requests the apiserver forwarded to a peer, by GVR (1.36+; empty before) and final code: the increase of its "+mvp.ReroutedMetric+" seen by the watch, its own peer-discovery fetches left out.", "server", "group", "version", "resource", "code"),
		proxyErrors: counter("peer_proxy_errors_total",
			"503s of endpoint resolution the apiserver answered (its "+mvp.PeerProxyErrorsMetric+", 1.36+), by GVR and type.", "server", "group", "version", "resource", "type"),
		syncErrors: counter("peer_discovery_sync_errors_total",
			"Failed peer-discovery syncs of the apiserver (its "+mvp.PeerDiscoverySyncErrorsMetric+", 1.36+), by type.", "server", "type"),
		discoveryFetch: counter("peer_discovery_fetches_total",
			"The apiserver's own fetches of its peers' discovery (counted by "+mvp.ReroutedMetric+" with no GVR, 1.36+): not user traffic.", "server"),
	}
}

var _ prometheus.Collector = (*Metrics)(nil)

// Describe sends every metric's description.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descServerUp, descServerInfo, descGate, descFilter, descPeersLearned, descPeers,
		descAtRisk, descOutcome, descWindowAge, descAPIService, descLastRead, descLastOK, descLastSuccess, descLastDuration,
		descUpgradeReady, descUpgradeVerdict, descUpgradeFindings, descUpgradeLastRun, descEvidenceSpan, descEvidenceWindow} {
		ch <- d
	}
	for _, c := range m.counters() {
		c.Describe(ch)
	}
}

func (m *Metrics) counters() []*prometheus.CounterVec {
	return []*prometheus.CounterVec{m.reads, m.readErrors, m.serverErrors, m.windowsOpened, m.proxied, m.proxyErrors, m.syncErrors, m.discoveryFetch}
}

// Observe takes one read.
func (m *Metrics) Observe(r Read) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.last = r
	if errors.Is(r.Err, ErrNoObservation) {
		m.reads.WithLabelValues("no-observation").Inc()
		m.readErrors.WithLabelValues(CauseNoObservation).Inc()
		return // the last state stands: nothing else was learned
	}
	m.reachable = 0
	if r.Snapshot != nil {
		for _, s := range r.Snapshot.Servers {
			if s.Reachable {
				m.reachable++
			} else {
				m.serverErrors.WithLabelValues(labelValues(s.Name, ServerErrorCause(s.Error))...).Inc()
			}
		}
	}
	switch {
	case r.Err != nil:
		m.reads.WithLabelValues("failed").Inc()
		m.readErrors.WithLabelValues(ReadErrorCause(r.Err)).Inc()
	case r.Snapshot != nil && (m.reachable < len(r.Snapshot.Servers) || r.Snapshot.Cluster.LeasesNotListed()):
		m.reads.WithLabelValues("partial").Inc()
	default:
		m.reads.WithLabelValues("ok").Inc()
	}
	if r.Err == nil {
		m.lastOK, m.everRead = r.Ended, true
		if m.readiness != nil && r.Snapshot != nil {
			m.readiness.observe(r.Snapshot, r.Ended)
		}
	}
	now := map[windowKey]time.Time{}
	for _, w := range r.State.Open {
		k := windowKey{w.Server, w.GVR}
		now[k] = w.Opened
		if at, ok := m.opened[k]; !ok || !at.Equal(w.Opened) {
			m.windowsOpened.WithLabelValues(labelValues(w.Server, string(w.Outcome))...).Inc()
		}
	}
	m.opened = now
	for _, s := range r.Traffic {
		if !s.Read {
			continue
		}
		m.discoveryFetch.WithLabelValues(labelValues(s.Name)...).Add(s.DiscoveryFetches)
		for _, c := range s.Proxied {
			g := gvrLabels(c.GVR)
			m.proxied.WithLabelValues(labelValues(s.Name, g.Group, g.Version, g.Resource, c.Code)...).Add(c.Count)
		}
		for _, c := range s.EndpointErrors {
			g := gvrLabels(c.GVR)
			m.proxyErrors.WithLabelValues(labelValues(s.Name, g.Group, g.Version, g.Resource, c.Type)...).Add(c.Count)
		}
		for typ, n := range s.SyncErrors {
			m.syncErrors.WithLabelValues(labelValues(s.Name, typ)...).Add(n)
		}
	}
}

// labelValues are values from outside — a server's name, an apiserver's counter labels (its
// code, type, group) — as the exporter's labels carry them: one line each, made Visible as
// everything mvpctl prints is (a newline is \x0a, a byte that is not UTF-8 \xff), so that a
// label never holds what the apiserver's own text would break or a reader would misread.
func labelValues(values ...string) []string {
	for i, v := range values {
		values[i] = textsafe.Visible(v)
	}
	return values
}

// gvrLabels are a counter's GVR as labels (all empty when the counter has none).
func gvrLabels(s string) snapshot.GVR {
	g, err := snapshot.ParseGVR(s)
	if err != nil {
		return snapshot.GVR{}
	}
	return g
}

// Ready says whether the exporter has a current view of the plane: its last read got a
// snapshot in which some server answered and the identity leases were listed (without them,
// other apiservers and down ones are not known). The error says why not.
func (m *Metrics) Ready() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case !m.everRead && m.last.Err == nil:
		return errors.New("no read of the control plane has completed yet")
	case m.last.Err != nil:
		return errors.New("the last read of the control plane got nothing: " + oneLine(m.last.Err.Error()))
	case m.reachable == 0:
		return errors.New("no apiserver answered the last read")
	case m.last.Snapshot != nil && basis.LeasesOf(m.last.Snapshot) != nil:
		// The servers it reports are those found otherwise: it cannot say the plane is up.
		return errors.New(basis.LeasesOf(m.last.Snapshot).String())
	}
	return nil
}

// ReadErrorCause names why a read got nothing, from the error's type where it has one.
func ReadErrorCause(err error) string {
	var (
		unknownAuthority x509.UnknownAuthorityError
		hostname         x509.HostnameError
		invalid          x509.CertificateInvalidError
		dnsErr           *net.DNSError
		netErr           net.Error
	)
	switch {
	case errors.Is(err, ErrNoObservation):
		return CauseNoObservation
	case errors.As(err, &unknownAuthority), errors.As(err, &hostname), errors.As(err, &invalid):
		return CauseTLS
	case errors.As(err, &dnsErr):
		return CauseDNS
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return CauseTimeout
	}
	return ServerErrorCause(err.Error())
}

// ServerErrorCause names why a server could not be read from the text the snapshot records
// of it (a snapshot holds the error as text only).
func ServerErrorCause(text string) string {
	t := strings.ToLower(text)
	switch {
	case text == vanishedError:
		return CauseNoIdentityLease
	case strings.Contains(t, "connection refused"):
		return CauseConnectionRefused
	case strings.Contains(t, "x509:") || strings.Contains(t, "tls:") || strings.Contains(t, "certificate"):
		return CauseTLS
	case strings.Contains(t, "timeout") || strings.Contains(t, "deadline exceeded"):
		return CauseTimeout
	case strings.Contains(t, "unauthorized") || strings.Contains(t, " 401"):
		return CauseUnauthorized
	case strings.Contains(t, "forbidden") || strings.Contains(t, " 403"):
		return CauseForbidden
	case strings.Contains(t, "no such host"):
		return CauseDNS
	}
	return CauseOther
}
