package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/redact"
	"github.com/mvpctl/mvpctl/pkg/report"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// staleSnapshotAge is the age past which a snapshot is said to be old: predictions describe
// the moment it was taken.
const staleSnapshotAge = 10 * time.Minute

// Run probes every reachable server of snap: for each selected GVR and verb it predicts the
// outcome with pkg/route, sends the request to the server directly — normally, then with the
// loop-prevention header — classifies what happened and compares. It returns an error only
// for bad options or a selection that matches nothing; everything that goes wrong with a
// server is in the report. Cancelling ctx (Ctrl-C) stops the run: the report then holds what
// was measured, and Interrupted says so.
func Run(ctx context.Context, snap *snapshot.Snapshot, opts Options) (*Report, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	targets, err := Select(snap, o.Selection)
	if err != nil {
		return nil, err
	}
	for _, name := range o.Servers {
		if snap.Find(name) == nil {
			return nil, fmt.Errorf("no server %q in the snapshot (servers: %s)", name, strings.Join(snap.ServerNames(), ", "))
		}
	}
	p := &prober{opts: o, snap: snap, router: route.NewRouter(snap), targets: targets}
	p.red.Add(o.Config)
	return p.run(ctx), nil
}

type prober struct {
	opts    Options
	snap    *snapshot.Snapshot
	router  *route.Router
	targets []Target
	red     redact.Redactor
	limiter flowcontrol.RateLimiter

	mu       sync.Mutex // guards the callbacks and the fields below
	servers  []*probedServer
	boundHit bool // a request was not sent because it would come after the total time bound
}

// probedServer is one server of the report with its client.
type probedServer struct {
	srv    *snapshot.Server
	rep    *ServerReport
	client *serverClient
	before *metricsSample
}

// measurement is one server × GVR × verb.
type measurement struct {
	ps     *probedServer
	target Target
	req    request
	res    Result
	normal *Classification
	local  *Classification
	listRV string // a list's metadata.resourceVersion
}

// listResourceVersion reads metadata.resourceVersion of a list.
func listResourceVersion(body []byte) string {
	var l struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if json.Unmarshal(body, &l) != nil {
		return ""
	}
	return l.Metadata.ResourceVersion
}

func (p *prober) progress(format string, args ...any) {
	if p.opts.Progress == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.opts.Progress(p.red.Clean(fmt.Sprintf(format, args...)))
}

func (p *prober) warn(rep *Report, format string, args ...any) {
	msg := p.red.Clean(fmt.Sprintf(format, args...))
	rep.Notes = append(rep.Notes, msg)
	if p.opts.Warn == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.opts.Warn(msg)
}

func (p *prober) run(ctx context.Context) *Report {
	o := p.opts
	rep := &Report{
		APIVersion: report.APIVersion,
		Kind:       ReportKind,
		Snapshot:   route.SnapshotRef{TakenAt: p.snap.TakenAt, Source: p.snap.Source, Partial: p.snap.Partial()},
		StartedAt:  o.Now().UTC(),
		Settings: Settings{Namespace: o.Namespace, ProxiedHeader: o.ProxiedHeader, WriteDryRun: o.WriteDryRun,
			AbsentName: o.AbsentName, Concurrency: o.Concurrency, QPS: o.QPS, RequestTimeout: o.RequestTimeout.String(),
			TotalTimeout: o.TotalTimeout.String(), Selection: o.Selection.String()},
		GVRs:                 p.targets,
		Results:              []Result{},
		LoopHeaderViolations: []LoopViolation{},
	}
	p.limiter = flowcontrol.NewTokenBucketRateLimiter(float32(o.QPS), 1)

	if !p.snap.TakenAt.IsZero() {
		if age := rep.StartedAt.Sub(p.snap.TakenAt); age > staleSnapshotAge {
			p.warn(rep, "the snapshot was taken %s ago: predictions describe that moment, the observations this one (take a fresh one: run without --snapshot)", age.Round(time.Minute))
		}
	}

	runCtx, cancel := context.WithTimeout(ctx, o.TotalTimeout)
	defer cancel()

	if len(p.targets) == 0 {
		p.warn(rep, "nothing to probe: every reachable server serves the same group/version/resources and no group has a listable one (use --all or --resource)")
	}
	p.pickServers(rep)
	p.connectAll(runCtx, rep)
	if !o.NoMetrics {
		p.readMetrics(runCtx)
		for _, ps := range p.servers {
			if ps.rep.Metrics != nil && ps.rep.Metrics.Note != "" {
				p.warn(rep, "server %s: %s", ps.srv.Name, ps.rep.Metrics.Note)
			}
		}
	}
	ms := p.plan(rep)
	if len(ms) > 0 {
		p.progress("probing %d server(s) × %d GVR(s): %d measurements, %d requests", p.probedCount(), len(p.targets), len(ms), 2*len(ms))
	}
	p.measureAll(runCtx, ms)

	finished := len(ms) > 0
	for _, m := range ms {
		finished = finished && (m.res.Verdict == VerdictError || (m.normal != nil && m.local != nil))
	}
	switch {
	case finished:
	case ctx.Err() != nil:
		rep.Interrupted = "interrupted: stopped before every measurement was made"
	case runCtx.Err() != nil || p.boundHit:
		rep.Interrupted = fmt.Sprintf("total time bound (%s) reached: stopped before every measurement was made", o.TotalTimeout)
	}

	for _, m := range ms {
		if m.normal != nil && m.local != nil {
			observe(&m.res, m.ps.srv, o.ProxiedHeader, *m.normal, *m.local)
		}
		rep.Results = append(rep.Results, m.res)
	}
	attributeProxied(rep.Results)
	attributeTransport(rep.Results, p.snap)

	if !o.NoMetrics {
		// The "after" read happens even when interrupted: it is quick, and it is the evidence
		// for what was measured. The run's own context may be done, so a fresh one bounds it.
		mctx, mcancel := context.WithTimeout(context.WithoutCancel(ctx), o.RequestTimeout)
		p.metricsEvidence(mctx, rep)
		mcancel()
	}

	p.summarise(rep)
	rep.FinishedAt = o.Now().UTC()
	p.redactReport(rep)
	return rep
}

// pickServers lists the snapshot's servers in the report and marks which can be probed.
func (p *prober) pickServers(rep *Report) {
	for i := range p.snap.Servers {
		s := &p.snap.Servers[i]
		if len(p.opts.Servers) > 0 && !selectedServer(s, p.opts.Servers) {
			continue
		}
		sr := ServerReport{Name: s.Name, ID: s.ID, Version: s.Version, Endpoint: s.Endpoint}
		switch {
		case !s.Reachable:
			sr.Error = "not reachable when the snapshot was taken"
			if s.Error != "" {
				sr.Error += ": " + s.Error
			}
		case s.Endpoint == "":
			sr.Error = "the snapshot names no endpoint to dial (a simulated or profile snapshot?)"
		}
		rep.Servers = append(rep.Servers, sr)
	}
	for i := range rep.Servers {
		sr := &rep.Servers[i]
		p.servers = append(p.servers, &probedServer{srv: p.snap.Find(sr.Name), rep: sr})
	}
}

func selectedServer(s *snapshot.Server, names []string) bool {
	for _, n := range names {
		if n == s.Name || (s.ID != "" && n == s.ID) {
			return true
		}
	}
	return false
}

func (p *prober) probedCount() int {
	n := 0
	for _, ps := range p.servers {
		if ps.client != nil {
			n++
		}
	}
	return n
}

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

// readMetrics takes the "before" sample of every probed server.
func (p *prober) readMetrics(ctx context.Context) {
	p.forEach(func(ps *probedServer) {
		if ps.client == nil {
			return
		}
		m, note := fetchMetrics(ctx, ps.client, p.opts.RequestTimeout)
		if m == nil {
			ps.rep.Metrics = &MetricsEvidence{Note: note}
			return
		}
		ps.before = m
	})
}

// plan lists the measurements, in report order: server (snapshot order), GVR, verb.
func (p *prober) plan(rep *Report) []*measurement {
	var ms []*measurement
	skipped := map[string]bool{}
	for _, ps := range p.servers {
		if ps.client == nil {
			continue
		}
		for _, t := range p.targets {
			verbs := verbsFor(t, p.opts.WriteDryRun)
			if len(verbs) == 0 {
				if !skipped[t.Name] {
					skipped[t.Name] = true
					rep.Skipped = append(rep.Skipped, Skipped{Name: t.Name, Why: whyNoVerbs(t, p.opts.WriteDryRun)})
				}
				continue
			}
			for _, verb := range verbs {
				req := buildRequest(t, verb, p.opts.Namespace, p.opts.AbsentName)
				m := &measurement{ps: ps, target: t, req: req, res: Result{Server: ps.srv.Name, GVR: t.GVR, Name: t.Name,
					Verb: verb, Method: req.method, Path: req.path, Verdict: VerdictNotMeasured}}
				pred, err := predict(p.router, p.snap, ps.srv.Name, t, req)
				if err != nil {
					m.res.Verdict, m.res.Observed.Error = VerdictError, "no prediction: "+err.Error()
				}
				m.res.Predicted = pred
				ms = append(ms, m)
			}
		}
	}
	return ms
}

// measureAll runs the measurements until done or ctx ends. One server × GVR is one job: its
// verbs run in order (list first, so the watch can start at the list's resourceVersion and
// skip the initial state), Concurrency jobs at a time.
func (p *prober) measureAll(ctx context.Context, ms []*measurement) {
	var units [][]*measurement
	for i, m := range ms {
		if i == 0 || m.ps != ms[i-1].ps || m.target.GVR != ms[i-1].target.GVR {
			units = append(units, nil)
		}
		units[len(units)-1] = append(units[len(units)-1], m)
	}
	jobs := make(chan []*measurement)
	var wg sync.WaitGroup
	var done int
	last := time.Now()
	for w := 0; w < p.opts.Concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for unit := range jobs {
				rv := ""
				for _, m := range unit {
					if ctx.Err() != nil {
						break
					}
					if m.res.Verdict == VerdictError {
						continue // no prediction
					}
					if m.req.verb == VerbWatch && rv != "" {
						m.req.path += "&resourceVersion=" + url.QueryEscape(rv)
						m.res.Path = m.req.path
					}
					p.measure(ctx, m)
					if m.req.verb == VerbList && m.listRV != "" {
						rv = m.listRV
					}
					p.mu.Lock()
					done++
					n := done
					report := n == len(ms) || time.Since(last) >= time.Second
					if report {
						last = time.Now()
					}
					p.mu.Unlock()
					if report {
						p.progress("measured %d/%d", n, len(ms))
					}
				}
			}
		}()
	}
dispatch:
	for _, u := range units {
		select {
		case jobs <- u:
		case <-ctx.Done():
			break dispatch
		}
	}
	close(jobs)
	wg.Wait()
	for _, m := range ms {
		if m.res.Verdict == VerdictNotMeasured && (m.normal == nil || m.local == nil) {
			m.res.Observed.Error = "not measured: the run stopped first"
			m.res.Observed.Text = "<not-measured>"
		}
	}
}

// measure sends the request normally, then forced local.
func (p *prober) measure(ctx context.Context, m *measurement) {
	header := http.Header{"Accept": {"application/json"}}
	if m.req.body != nil {
		header.Set("Content-Type", "application/json")
	}
	for _, forced := range []bool{false, true} {
		h := header.Clone()
		if forced {
			h.Set(p.opts.ProxiedHeader, ForcedLocalValue)
		}
		if err := p.limiter.Wait(ctx); err != nil {
			// Not measured: the run is over, or the next request would come after the
			// total time bound (the limiter says so before waiting).
			if ctx.Err() == nil {
				p.mu.Lock()
				p.boundHit = true
				p.mu.Unlock()
			}
			return
		}
		rctx, cancel := context.WithTimeout(ctx, p.opts.RequestTimeout)
		a, err := m.ps.client.Do(rctx, m.req.method, m.req.path, h, m.req.body)
		cancel()
		p.mu.Lock()
		m.ps.rep.Requests++
		p.mu.Unlock()
		if err != nil {
			if ctx.Err() != nil {
				return // not measured: the run is over
			}
			m.res.Verdict = VerdictError
			m.res.Observed.Error = fmt.Sprintf("%s %s%s: %s", m.req.method, m.req.path, forcedNote(forced), describeErr(err, p.opts.RequestTimeout))
			m.res.Observed.Text = "error"
			return
		}
		c := Classify(Observation{StatusCode: a.Code, ContentType: a.ContentType, Body: a.Body})
		if !forced && m.req.verb == VerbList && a.Code == http.StatusOK {
			m.listRV = listResourceVersion(a.Body)
		}
		r := &Response{Status: a.Code, ContentType: a.ContentType, Class: c.Class, Reason: string(c.Reason), Message: clip(c.Message), Why: c.Why, Millis: a.Took.Milliseconds()}
		if forced {
			m.local, m.res.Observed.ForcedLocal = &c, r
		} else {
			m.normal, m.res.Observed.Normal = &c, r
		}
	}
}

func forcedNote(forced bool) string {
	if forced {
		return " (forced local)"
	}
	return ""
}

// metricsEvidence takes the "after" samples and compares them with what was observed.
func (p *prober) metricsEvidence(ctx context.Context, rep *Report) {
	expected := map[*probedServer][2]int{}
	for _, ps := range p.servers {
		var rerouted, endpoint int
		for i := range rep.Results {
			r := &rep.Results[i]
			if r.Server != ps.srv.Name {
				continue
			}
			switch {
			case r.Observed.Outcome == mvp.Proxied:
				rerouted++
			case r.Observed.Outcome == mvp.Unavailable && r.Observed.Unavailable == mvp.Transport:
				rerouted++
			case r.Observed.Outcome == mvp.Unavailable && r.Observed.Unavailable == mvp.EndpointResolution:
				endpoint++
			case r.Observed.Outcome == mvp.NotFound && r.Predicted.Outcome == mvp.Proxied:
				rerouted++ // the peer's own 404
			}
			if r.Verdict == VerdictLoopViolation && r.Observed.ForcedLocal != nil {
				if r.Observed.ForcedLocal.Class == ClassUnavailableEndpoint {
					endpoint++
				} else {
					rerouted++
				}
			}
		}
		expected[ps] = [2]int{rerouted, endpoint}
	}
	after := map[*probedServer]*metricsSample{}
	read := func() {
		p.forEach(func(ps *probedServer) {
			if ps.client == nil || ps.before == nil {
				return
			}
			m, note := fetchMetrics(ctx, ps.client, p.opts.RequestTimeout)
			p.mu.Lock()
			defer p.mu.Unlock()
			if m == nil {
				ps.rep.Metrics = &MetricsEvidence{Note: note}
				return
			}
			after[ps] = m
		})
	}
	read()
	// The counters are incremented when the proxy handler returns, which can be just after
	// the client has the whole answer: give a short-counted server one more look.
	again := false
	for ps, m := range after {
		if ev := evidence(ps.before, m); int(ev.ReroutedTotal) < expected[ps][0] || int(ev.PeerProxyErrorsTotal) < expected[ps][1] {
			again = true
		}
	}
	if again {
		time.Sleep(500 * time.Millisecond)
		read()
	}
	for _, ps := range p.servers {
		m := after[ps]
		if m == nil {
			continue
		}
		ev := evidence(ps.before, m)
		ev.ExpectedRerouted, ev.ExpectedEndpointErrors = expected[ps][0], expected[ps][1]
		if v, err := snapshot.ParseVersion(ps.srv.Version); err == nil && !mvp.ReroutedMetricHasGVR(v) {
			ev.Note = "before 1.36 the counter has only a code label and also counts peer-discovery fetches"
		}
		ps.rep.Metrics = ev
		p.corroborate(ps, ev, rep)
	}
}

// corroborate checks loop-header violations against the server's per-GVR counters (1.36+):
// requests it forwarded despite the header were counted. A violation the counters cannot
// account for was the server answering by itself a GVR its discovery did not list (a stale
// snapshot): a mismatch, not a loop.
func (p *prober) corroborate(ps *probedServer, ev *MetricsEvidence, rep *Report) {
	perGVR := map[string]float64{}
	labelled := false
	for _, d := range ev.Rerouted {
		if _, ok := d.Labels["resource"]; ok {
			labelled = true
			g := snapshot.GVR{Group: d.Labels["group"], Version: d.Labels["version"], Resource: d.Labels["resource"]}
			perGVR[g.String()] += d.Delta
		}
	}
	for _, d := range ev.PeerProxyErrors {
		if _, ok := d.Labels["resource"]; ok {
			g := snapshot.GVR{Group: d.Labels["group"], Version: d.Labels["version"], Resource: d.Labels["resource"]}
			perGVR[g.String()] += d.Delta
		}
	}
	if !labelled && len(ev.Rerouted) > 0 {
		return // before 1.36: no per-GVR evidence
	}
	expectedNormal := map[string]float64{}
	violations := map[string][]*Result{}
	for i := range rep.Results {
		r := &rep.Results[i]
		if r.Server != ps.srv.Name {
			continue
		}
		switch {
		case r.Observed.Outcome == mvp.Proxied, r.Observed.Outcome == mvp.Unavailable,
			r.Observed.Outcome == mvp.NotFound && r.Predicted.Outcome == mvp.Proxied:
			expectedNormal[r.Name]++
		}
		if r.Verdict == VerdictLoopViolation {
			violations[r.Name] = append(violations[r.Name], r)
		}
	}
	for name, rs := range violations {
		extra := perGVR[name] - expectedNormal[name]
		for _, r := range rs {
			if extra >= 1 {
				r.Note += "; confirmed by " + MetricRerouted
				extra--
				continue
			}
			r.Verdict = VerdictMismatch
			r.Note = fmt.Sprintf("%s answered the request carrying the loop-prevention header with a handler, but its %s shows no forwarded request: it serves %s itself although its discovery in the snapshot does not list it (a stale snapshot?)", ps.srv.Name, MetricRerouted, name)
			r.Observed.Outcome = Combine(classOf(r.Observed.Normal), classOf(r.Observed.ForcedLocal)).Outcome
			r.Observed.Text = observedText(r.Observed.Outcome, r.Observed.Unavailable, nil)
		}
	}
}

func classOf(r *Response) Classification {
	if r == nil {
		return Classification{}
	}
	return Classification{Class: r.Class, StatusCode: r.Status}
}

// summarise counts the results and lists the loop-header violations.
func (p *prober) summarise(rep *Report) {
	s := &rep.Summary
	for i := range rep.Results {
		r := &rep.Results[i]
		s.Results++
		switch r.Verdict {
		case VerdictMatch:
			s.Match++
		case VerdictMismatch:
			s.Mismatch++
		case VerdictLoopViolation:
			s.LoopViolations++
			st := 0
			if r.Observed.ForcedLocal != nil {
				st = r.Observed.ForcedLocal.Status
			}
			rep.LoopHeaderViolations = append(rep.LoopHeaderViolations, LoopViolation{Server: r.Server, Name: r.Name, Verb: r.Verb,
				Path: r.Path, Header: p.opts.ProxiedHeader + ": " + ForcedLocalValue, Status: st, Why: r.Observed.Why})
		case VerdictInconclusive:
			s.Inconclusive++
		case VerdictError:
			s.Errors++
		case VerdictNotMeasured:
			s.NotMeasured++
		}
	}
	for _, sr := range rep.Servers {
		if !sr.Probed {
			s.ServersNotProbed++
		}
		s.Requests += sr.Requests
	}
	rep.Partial = rep.Interrupted != "" || s.ServersNotProbed > 0 || s.Inconclusive > 0 || s.Errors > 0 || s.NotMeasured > 0
}

// redactReport passes every free-text field through the redactor.
func (p *prober) redactReport(rep *Report) {
	c := p.red.Clean
	for i := range rep.Servers {
		rep.Servers[i].Error = c(rep.Servers[i].Error)
		if m := rep.Servers[i].Metrics; m != nil {
			m.Note = c(m.Note)
		}
	}
	for i := range rep.Results {
		r := &rep.Results[i]
		r.Note, r.Observed.Why, r.Observed.Error = c(r.Note), c(r.Observed.Why), c(r.Observed.Error)
		for _, resp := range []*Response{r.Observed.Normal, r.Observed.ForcedLocal} {
			if resp != nil {
				resp.Why, resp.Message = c(resp.Why), c(resp.Message)
			}
		}
	}
	for i := range rep.LoopHeaderViolations {
		rep.LoopHeaderViolations[i].Why = c(rep.LoopHeaderViolations[i].Why)
	}
	for i := range rep.Notes {
		rep.Notes[i] = c(rep.Notes[i])
	}
}
