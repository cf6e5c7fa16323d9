package proxytraffic

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/internal/apimetrics"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/redact"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// processStart is the standard process collector's start time: a server whose value changed
// is a new process, whose counters began at zero.
const processStart = mvp.ProcessStartTimeMetric

// Sampler reads the counters of a watch's servers again and again and returns what each
// counted since its previous read: the sampling of Observe, spread over many intervals.
type Sampler struct {
	opts    Options
	warn    func(string)
	started time.Time
	red     redact.Redactor

	mu      sync.Mutex
	clients map[string]*apiclient.Client // by server name and endpoint
	last    map[string]apimetrics.Sample // by server name
	warned  map[string]bool
}

// NewSampler starts sampling now; warn hears, once per server, that its counters cannot be
// read (a 403 without the RBAC of deploy/rbac, most often).
func NewSampler(opts Options, warn func(string)) (*Sampler, error) {
	if opts.ConfigFor == nil {
		return nil, fmt.Errorf("proxytraffic: no client config")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if warn == nil {
		warn = func(string) {}
	}
	return &Sampler{opts: opts, warn: warn, started: opts.Now(), clients: map[string]*apiclient.Client{},
		last: map[string]apimetrics.Sample{}, warned: map[string]bool{}}, nil
}

// Sample reads every reachable server of snap. A server read for the first time gives a
// baseline and no counts — unless its process started after the sampler did, when all it
// counted is new. A server whose process changed since its last read (a restart) counts
// from zero: what its old process counted after that read is lost with it. Servers whose
// counters cannot be read are returned with Read false and the reason, and warned about once;
// a server that no longer answers (stopping since the snapshot) is left out silently.
func (s *Sampler) Sample(ctx context.Context, snap *snapshot.Snapshot) []Server {
	if snap == nil {
		return nil
	}
	type read struct {
		srv    *snapshot.Server
		sample apimetrics.Sample
		err    error
	}
	var reads []*read
	var wg sync.WaitGroup
	for i := range snap.Servers {
		srv := &snap.Servers[i]
		if !srv.Reachable || srv.Endpoint == "" {
			continue // down: the watch says so; its counters are read when it is back
		}
		r := &read{srv: srv}
		reads = append(reads, r)
		c, err := s.client(srv)
		if err != nil {
			r.err = err
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
			defer cancel()
			r.sample, r.err = apimetrics.Fetch(rctx, c, append([]string{processStart}, families...)...)
		}()
	}
	wg.Wait()
	var out []Server
	for _, r := range reads {
		if ctx.Err() != nil {
			return nil // interrupted: a read cut short is no sample
		}
		srv := newServer(r.srv)
		if r.err != nil {
			srv.Note = s.red.Clean(apiclient.OneLine(r.err.Error()))
			if gone(r.err) {
				// The server went away since the snapshot (a stop in progress): the watch says
				// it is down at its next read; its counters are read again when it is back.
				continue
			}
			if !s.warned[srv.Name] {
				s.warned[srv.Name] = true
				s.warn(fmt.Sprintf("cannot read the proxy counters of %s (%s): its traffic is not shown", srv.Name, srv.Note))
			}
			out = append(out, srv)
			continue
		}
		before, known := s.last[srv.Name]
		s.last[srv.Name] = r.sample
		start := r.sample[processStart][""]
		switch {
		case !known && start > 0 && start >= float64(s.started.Unix()):
			before = apimetrics.Sample{} // started during the watch: all it counted is new
			srv.NewProcess = true
		case !known:
			continue // a baseline
		case before[processStart][""] != start:
			before = apimetrics.Sample{} // another process: its counters began at zero
			srv.NewProcess = true
		}
		srv.Read = true
		fill(&srv, before, r.sample)
		out = append(out, srv)
	}
	return out
}

// gone says err is a server that no longer answers (refused, reset, timed out), not one that
// answers something else than its counters.
func gone(err error) bool {
	var e *apiclient.Error
	if !errors.As(err, &e) {
		return false
	}
	return e.Kind == apiclient.KindRefused || e.Kind == apiclient.KindUnreachable || e.Kind == apiclient.KindTimeout
}

// client is the one client of a server at an endpoint.
func (s *Sampler) client(srv *snapshot.Server) (*apiclient.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := srv.Name + " " + srv.Endpoint
	if c := s.clients[key]; c != nil {
		return c, nil
	}
	cfg, err := s.opts.ConfigFor(srv)
	if err != nil {
		return nil, err
	}
	s.red.Add(cfg)
	c, err := apiclient.New(cfg, srv.Endpoint, apiclient.Options{Timeout: s.opts.Timeout, Redactor: &s.red})
	if err != nil {
		return nil, err
	}
	s.clients[key] = c
	return c, nil
}
