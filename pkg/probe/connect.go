package probe

import (
	"context"
	"errors"
	"sync"

	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// configFor returns the client config of one server.
func (p *prober) configFor(s *snapshot.Server) (*rest.Config, error) {
	if p.opts.ConfigFor != nil {
		cfg, err := p.opts.ConfigFor(s)
		if err != nil {
			return nil, err
		}
		if cfg != nil {
			p.mu.Lock()
			p.red.Add(cfg)
			p.mu.Unlock()
			return cfg, nil
		}
	}
	if p.opts.Config == nil {
		return nil, errors.New("no client config")
	}
	return p.opts.Config, nil
}

// connectAll checks every candidate server answers, at most Concurrency at a time.
func (p *prober) connectAll(ctx context.Context, rep *Report) {
	insecure := false
	p.forEach(func(ps *probedServer) {
		if ps.rep.Error != "" {
			return
		}
		cfg, err := p.configFor(ps.srv)
		if err != nil {
			ps.rep.Error = "client config: " + apiclient.OneLine(err.Error())
			return
		}
		if cfg.TLSClientConfig.Insecure {
			p.mu.Lock()
			insecure = true
			p.mu.Unlock()
		}
		if err := p.limiter.Wait(ctx); err != nil {
			ps.rep.Error = "not contacted: " + describeErr(ctxErr(ctx, err), p.opts.RequestTimeout)
			return
		}
		c, err := connect(ctx, cfg, ps.srv.Endpoint, p.opts.RequestTimeout, &p.red)
		if err != nil {
			ps.rep.Error = apiclient.OneLine(err.Error())
			return
		}
		ps.client = c
		ps.rep.Probed = true
		ps.rep.TLSServerName = c.ServerName()
	})
	if insecure {
		rep.Settings.InsecureTLS = true
		p.warn(rep, apiclient.InsecureWarning)
	}
}

// ctxErr prefers the context's error (cancelled, deadline) over the limiter's wording of it.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// forEach runs f for every server, at most Concurrency at a time.
func (p *prober) forEach(f func(ps *probedServer)) {
	sem := make(chan struct{}, p.opts.Concurrency)
	var wg sync.WaitGroup
	for _, ps := range p.servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			f(ps)
		}()
	}
	wg.Wait()
}
