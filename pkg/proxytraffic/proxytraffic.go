// Package proxytraffic shows what the Mixed Version Proxy really carried: it reads each
// apiserver's peer-proxy counters (docs/behaviour.md §9) at the start and at the end of an
// interval and reports, per server and GVR, the requests proxied and with which codes, the
// 503s of endpoint resolution, and the peer-discovery syncs that failed. The peer-discovery
// fetches a server makes itself are counted by the same metric; from 1.36 they carry an
// empty group/version/resource and are reported apart, never as user traffic.
package proxytraffic

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/internal/apimetrics"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/redact"
	"github.com/mvpctl/mvpctl/pkg/report"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Kind is the kind of Report.
const Kind = "ProxyTraffic"

// Options say how to read the servers.
type Options struct {
	// ConfigFor returns the client config of one server (its kubeconfig context's).
	ConfigFor func(*snapshot.Server) (*rest.Config, error)
	// Interval is the time between the two reads.
	Interval time.Duration
	// Timeout bounds one read of /metrics.
	Timeout time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Report is what every server proxied during the interval.
type Report struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	From       time.Time `json:"from"`
	To         time.Time `json:"to"`
	Servers    []Server  `json:"servers"`
	// Partial is true when some server's counters could not be read twice.
	Partial bool `json:"partial"`
	// Interrupted says why the interval was cut short, if it was.
	Interrupted string `json:"interrupted,omitempty"`
}

// Server is one apiserver's counters over the interval.
type Server struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Read is false when the counters could not be read at both ends; Note says why.
	Read bool   `json:"read"`
	Note string `json:"note,omitempty"`
	// ByGVR says whether the counters carry group/version/resource (1.36+); before, Proxied
	// has one row per code, and peer-discovery fetches cannot be told from user requests.
	ByGVR bool `json:"byGVR"`
	// Proxied are the resource requests the server forwarded to a peer, by GVR and final code.
	Proxied      []Count `json:"proxied,omitempty"`
	ProxiedTotal float64 `json:"proxiedTotal"`
	// DiscoveryFetches are the server's own fetches of its peers' discovery (1.36+): counted
	// by the same metric, not user traffic.
	DiscoveryFetches float64 `json:"discoveryFetches"`
	// EndpointErrors are the 503s "Error getting ip and port info" (1.36+), by GVR and type.
	EndpointErrors []Count `json:"endpointErrors,omitempty"`
	// SyncErrors are failed peer-discovery syncs by type (1.36+).
	SyncErrors map[string]float64 `json:"syncErrors,omitempty"`
	// NewProcess (Sampler) says the counts are those of a process started since the server's
	// last sample: they began at zero.
	NewProcess bool `json:"newProcess,omitempty"`
}

// Count is one counter's increase: for GVR (empty before 1.36), by Code or Type.
type Count struct {
	GVR   string  `json:"gvr,omitempty"`
	Code  string  `json:"code,omitempty"`
	Type  string  `json:"type,omitempty"`
	Count float64 `json:"count"`
}

var families = []string{mvp.ReroutedMetric, mvp.PeerProxyErrorsMetric, mvp.PeerDiscoverySyncErrorsMetric}

// Observe reads every reachable server of snap, waits Interval (or until ctx ends), and reads
// them again. A server whose counters cannot be read is in the report with the reason.
func Observe(ctx context.Context, snap *snapshot.Snapshot, opts Options) (*Report, error) {
	if opts.ConfigFor == nil {
		return nil, errors.New("proxytraffic: no client config")
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	var red redact.Redactor
	rep := &Report{APIVersion: report.APIVersion, Kind: Kind}
	readers := newCounterReaders(snap, opts, &red)
	rep.From = now().UTC()
	readAll(readers, func(r *counterReader) { r.before, r.err = r.read(ctx, opts.Timeout) })
	select {
	case <-ctx.Done():
		rep.Interrupted = "interrupted before the interval ended: the counts cover a shorter time"
	case <-time.After(opts.Interval):
	}
	// The second read gets its own deadline: an interrupted interval still ends with a read.
	ctx = context.WithoutCancel(ctx)
	afters := make(map[*counterReader]apimetrics.Sample)
	var mu sync.Mutex
	readAll(readers, func(r *counterReader) {
		s, err := r.read(ctx, opts.Timeout)
		mu.Lock()
		defer mu.Unlock()
		afters[r], r.err = s, err
	})
	rep.To = now().UTC()
	for _, r := range readers {
		s := newServer(r.srv)
		if r.err != nil {
			s.Note = red.Clean(apiclient.OneLine(r.err.Error()))
			rep.Partial = true
		} else {
			s.Read = true
			fill(&s, r.before, afters[r])
		}
		rep.Servers = append(rep.Servers, s)
	}
	return rep, nil
}

// counterReader reads one server's counters: its client, its first sample, and why it could
// not be read (then it is read no more).
type counterReader struct {
	srv    *snapshot.Server
	client *apiclient.Client
	before apimetrics.Sample
	err    error
}

// newCounterReaders is a reader for each server of snap, in its order: a server unreachable
// when the snapshot was taken, or without a client config, has its reason instead of a client.
func newCounterReaders(snap *snapshot.Snapshot, opts Options, red *redact.Redactor) []*counterReader {
	var readers []*counterReader
	for i := range snap.Servers {
		srv := &snap.Servers[i]
		r := &counterReader{srv: srv}
		readers = append(readers, r)
		if !srv.Reachable {
			r.err = errors.New("could not be read when the snapshot was taken")
			continue
		}
		cfg, err := opts.ConfigFor(srv)
		if err != nil {
			r.err = err
			continue
		}
		red.Add(cfg)
		r.client, r.err = apiclient.New(cfg, srv.Endpoint, apiclient.Options{Timeout: opts.Timeout, Redactor: red})
	}
	return readers
}

// readAll runs f on every reader that can still be read, side by side, and waits for them.
func readAll(readers []*counterReader, f func(r *counterReader)) {
	var wg sync.WaitGroup
	for _, r := range readers {
		if r.err != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(r)
		}()
	}
	wg.Wait()
}

// read fetches the server's peer-proxy counters, within timeout.
func (r *counterReader) read(ctx context.Context, timeout time.Duration) (apimetrics.Sample, error) {
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return apimetrics.Fetch(rctx, r.client, families...)
}

// newServer is srv's entry, with no counts yet.
func newServer(srv *snapshot.Server) Server {
	v, err := snapshot.ParseVersion(srv.Version)
	return Server{Name: srv.Name, Version: srv.Version, ByGVR: err == nil && mvp.ReroutedMetricHasGVR(v)}
}

// fill sets s's counts from two samples.
func fill(s *Server, before, after apimetrics.Sample) {
	for _, d := range apimetrics.Deltas(before[mvp.ReroutedMetric], after[mvp.ReroutedMetric]) {
		gvr := gvrOf(d.Labels)
		if s.ByGVR && gvr == "" {
			s.DiscoveryFetches += d.Delta
			continue
		}
		s.Proxied = append(s.Proxied, Count{GVR: gvr, Code: d.Labels["code"], Count: d.Delta})
		s.ProxiedTotal += d.Delta
	}
	for _, d := range apimetrics.Deltas(before[mvp.PeerProxyErrorsMetric], after[mvp.PeerProxyErrorsMetric]) {
		s.EndpointErrors = append(s.EndpointErrors, Count{GVR: gvrOf(d.Labels), Type: d.Labels["type"], Count: d.Delta})
	}
	for _, d := range apimetrics.Deltas(before[mvp.PeerDiscoverySyncErrorsMetric], after[mvp.PeerDiscoverySyncErrorsMetric]) {
		if s.SyncErrors == nil {
			s.SyncErrors = map[string]float64{}
		}
		s.SyncErrors[d.Labels["type"]] += d.Delta
	}
	sort.SliceStable(s.Proxied, func(i, j int) bool {
		if s.Proxied[i].GVR != s.Proxied[j].GVR {
			return s.Proxied[i].GVR < s.Proxied[j].GVR
		}
		return s.Proxied[i].Code < s.Proxied[j].Code
	})
}

// gvrOf is a series' GVR as mvpctl writes GVRs ("v1/pods" for the core group); "" when the
// labels are empty or absent.
func gvrOf(l map[string]string) string {
	if l["version"] == "" && l["resource"] == "" {
		return ""
	}
	return snapshot.GVR{Group: l["group"], Version: l["version"], Resource: l["resource"]}.String()
}
