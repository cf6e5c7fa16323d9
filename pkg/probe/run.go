package probe

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/util/flowcontrol"

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
			aggregated := p.snap.Cluster.AggregatedAPIService(m.target.GVR.GroupVersion()) != nil
			observe(&m.res, m.ps.srv, o.ProxiedHeader, aggregated, *m.normal, *m.local)
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

// summarise counts the results and lists the loop-header violations.
func (p *prober) summarise(rep *Report) {
	s := &rep.Summary
	for i := range rep.Results {
		r := &rep.Results[i]
		s.Results++
		if (r.Observed.Normal != nil && r.Observed.Normal.Truncated) || (r.Observed.ForcedLocal != nil && r.Observed.ForcedLocal.Truncated) {
			s.Truncated++
		}
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
