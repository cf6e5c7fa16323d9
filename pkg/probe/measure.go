package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// listResourceVersion reads metadata.resourceVersion of a list. It reads the object's members
// in order and stops at metadata, so a list cut at the bound still gives it: the apiserver
// writes kind, apiVersion and metadata before the items.
func listResourceVersion(body []byte) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return ""
		}
		if key != "metadata" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return ""
			}
			continue
		}
		var m struct {
			ResourceVersion string `json:"resourceVersion"`
		}
		if dec.Decode(&m) != nil {
			return ""
		}
		return m.ResourceVersion
	}
	return ""
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
		c := Classify(Observation{StatusCode: a.Code, ContentType: a.ContentType, Body: a.Body, Truncated: a.Truncated})
		if !forced && m.req.verb == VerbList && a.Code == http.StatusOK {
			m.listRV = listResourceVersion(a.Body)
		}
		r := &Response{Status: a.Code, ContentType: a.ContentType, Class: c.Class, Reason: string(c.Reason), Message: clip(c.Message), Why: c.Why, Millis: a.Took.Milliseconds(), Truncated: a.Truncated}
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

func classOf(r *Response) Classification {
	if r == nil {
		return Classification{}
	}
	return Classification{Class: r.Class, StatusCode: r.Status}
}
