package simulate

import (
	"errors"
	"io"
	"sort"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TrafficReport counts replayed requests by outcome, per step, GVR and user agent.
type TrafficReport struct {
	Source string `json:"source"`
	Format string `json:"format"`
	// Requests counts the requests replayed; NonResource those that are never routed
	// (discovery, health); Unparsable those the apiserver's parser rejects.
	Requests    int64 `json:"requests"`
	NonResource int64 `json:"nonResource"`
	Unparsable  int64 `json:"unparsable"`
	// Malformed counts unreadable lines (with a few examples); Skipped audit events of
	// non-final stages.
	Malformed         int64    `json:"malformed"`
	MalformedExamples []string `json:"malformedExamples,omitempty"`
	Skipped           int64    `json:"skippedStages,omitempty"`
	// ProxiedCopies counts audit events whose audit ID an earlier event of the log has: a
	// request one server proxied to a peer is logged by both (a log merged from several
	// servers), and is replayed once.
	ProxiedCopies int64 `json:"proxiedCopies,omitempty"`
	// Proxied joins the two events of each proxied request (nil when no audit ID repeats).
	Proxied *ProxiedReport `json:"proxied,omitempty"`

	Steps      []StepTraffic      `json:"steps"`
	GVRs       []GVRTraffic       `json:"gvrs"`
	UserAgents []UserAgentTraffic `json:"userAgents"`
}

// StepTraffic is the outcome of every request on every reachable server at one step. A
// request sent through a load balancer lands on one server; AtRisk counts the requests that
// fail on at least one.
type StepTraffic struct {
	N      int                      `json:"n"`
	Step   string                   `json:"step"`
	ByServ map[string]OutcomeCounts `json:"servers"`
	AtRisk int64                    `json:"atRisk"`
}

// OutcomeCounts counts requests by outcome.
type OutcomeCounts struct {
	Local       int64 `json:"local"`
	Proxied     int64 `json:"proxied"`
	NotFound    int64 `json:"notFound"`
	Unavailable int64 `json:"unavailable"`
}

func (c *OutcomeCounts) add(o mvp.Outcome) {
	switch o {
	case mvp.Local:
		c.Local++
	case mvp.Proxied:
		c.Proxied++
	case mvp.NotFound:
		c.NotFound++
	case mvp.Unavailable:
		c.Unavailable++
	}
}

// GVRTraffic is the traffic for one GVR. AtRisk counts its requests that fail on some server
// at some step while some server serves the GVR; AtRiskSteps names those steps.
type GVRTraffic struct {
	GVR         string `json:"gvr"`
	Requests    int64  `json:"requests"`
	AtRisk      int64  `json:"atRisk"`
	AtRiskSteps []int  `json:"atRiskSteps,omitempty"`
	// Removed is true when the scenario ends with no server serving it.
	Removed bool `json:"removed,omitempty"`
}

// UserAgentTraffic is the traffic of one user agent.
type UserAgentTraffic struct {
	UserAgent string `json:"userAgent"`
	Requests  int64  `json:"requests"`
	// AtRisk counts its requests that fail on some server at some step.
	AtRisk int64 `json:"atRisk"`
}

// maxUserAgents bounds the user-agent table; further agents are counted as "<other>".
const maxUserAgents = 10000

// decisionKey is what a decision depends on: the GVR and subresource of a resource request.
type decisionKey struct {
	gvr snapshot.GVR
	sub string
}

// Replay sends every request of tr through every step of sim. Decisions are memoised per
// step, server, GVR and subresource, so the cost per request is one parse and a few map
// look-ups.
func Replay(sim *Simulation, tr *TrafficReader, source, format string) (*TrafficReport, error) {
	return ReplayLogs(sim, []*TrafficReader{tr}, source, format)
}

// ReplayLogs replays the readers one after another, as one traffic: an audit ID seen in one
// log and again in another (within the window of recentIDs events) is one proxied request,
// replayed once and joined in the report's Proxied.
func ReplayLogs(sim *Simulation, trs []*TrafficReader, source, format string) (*TrafficReport, error) {
	i := 0
	next := func() (TrafficRequest, error) {
		for i < len(trs) {
			tq, err := trs[i].Next()
			if errors.Is(err, io.EOF) {
				i++
				continue
			}
			tq.server = trs[i].Server
			return tq, err
		}
		return TrafficRequest{}, io.EOF
	}
	return replay(sim, next, func(rep *TrafficReport) {
		for _, tr := range trs {
			rep.Malformed += tr.Malformed
			rep.Skipped += tr.Skipped
			for _, e := range tr.Examples {
				if len(rep.MalformedExamples) < maxExamples {
					rep.MalformedExamples = append(rep.MalformedExamples, e)
				}
			}
		}
	}, source, format)
}

// replay is Replay over any source of requests; counted fills in the reader's counts at the end.
func replay(sim *Simulation, next func() (TrafficRequest, error), counted func(*TrafficReport), source, format string) (*TrafficReport, error) {
	rep := &TrafficReport{Source: source, Format: format}
	type stepState struct {
		counts  map[string]*OutcomeCounts
		atRisk  int64
		servers []string
		memo    map[decisionKey][]mvp.Outcome
		// served is every GVR some server of the step serves (reachable or not): a request
		// for a GVR nobody serves fails with or without an upgrade, and is not counted as
		// at risk (removed APIs are reported separately).
		served map[snapshot.GVR]bool
	}
	states := make([]*stepState, len(sim.Steps))
	for i, s := range sim.Steps {
		st := &stepState{counts: map[string]*OutcomeCounts{}, memo: map[decisionKey][]mvp.Outcome{}, served: map[snapshot.GVR]bool{}}
		for _, srv := range s.snap.Servers {
			for _, r := range srv.Resources {
				st.served[r.GVR()] = true
			}
			if srv.Reachable {
				st.servers = append(st.servers, srv.Name)
				st.counts[srv.Name] = &OutcomeCounts{}
			}
		}
		states[i] = st
	}
	gvrs := map[snapshot.GVR]*GVRTraffic{}
	agents := map[string]*UserAgentTraffic{}
	removedSet := map[string]bool{}
	for _, g := range sim.Removed {
		removedSet[g] = true
	}

	join := newJoin()
	recent := newRecentIDs(recentIDs)
	recent.done = join.add
	for {
		tq, err := next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if recent.see(tq.AuditID, seenEvent{server: tq.server, method: tq.Method, uri: tq.Path, agent: tq.UserAgent, code: tq.Code, received: tq.Received}) {
			rep.ProxiedCopies++
			continue
		}
		rep.Requests++
		ua := agentEntry(agents, tq.UserAgent)
		ua.Requests++
		req, err := tq.req, tq.parseErr
		if !tq.parsed {
			req, err = route.ParseRequest(tq.Method, tq.Path)
		}
		if err != nil {
			rep.Unparsable++
			continue
		}
		if !req.Info.IsResourceRequest {
			rep.NonResource++
			continue
		}
		key := decisionKey{gvr: req.Info.GVR(), sub: req.Info.Subresource}
		gt := gvrs[key.gvr]
		if gt == nil {
			gt = &GVRTraffic{GVR: key.gvr.String(), Removed: removedSet[key.gvr.String()]}
			gvrs[key.gvr] = gt
		}
		gt.Requests++
		failedSomewhere := false
		for i, st := range states {
			outcomes, ok := st.memo[key]
			if !ok {
				router := sim.Steps[i].router
				for _, name := range st.servers {
					d, _ := router.Decide(name, req) // reachable servers only: cannot fail
					outcomes = append(outcomes, d.Outcome)
				}
				st.memo[key] = outcomes
			}
			fails := false
			for j, o := range outcomes {
				st.counts[st.servers[j]].add(o)
				fails = fails || o == mvp.NotFound || o == mvp.Unavailable
			}
			if fails && st.served[key.gvr] {
				st.atRisk++
				gt.AtRiskSteps = appendStep(gt.AtRiskSteps, i)
				failedSomewhere = true
			}
		}
		if failedSomewhere {
			gt.AtRisk++
			ua.AtRisk++
		}
	}
	counted(rep)
	recent.flush()
	rep.Proxied = join.report()

	for i, st := range states {
		byServ := map[string]OutcomeCounts{}
		for name, c := range st.counts {
			byServ[name] = *c
		}
		rep.Steps = append(rep.Steps, StepTraffic{N: sim.Steps[i].N, Step: sim.Steps[i].Step, ByServ: byServ, AtRisk: st.atRisk})
	}
	for _, g := range gvrs {
		rep.GVRs = append(rep.GVRs, *g)
	}
	sort.Slice(rep.GVRs, func(i, j int) bool {
		a, b := rep.GVRs[i], rep.GVRs[j]
		return riskFirst(a.AtRisk, b.AtRisk, a.Requests, b.Requests, a.GVR, b.GVR)
	})
	for _, a := range agents {
		rep.UserAgents = append(rep.UserAgents, *a)
	}
	sort.Slice(rep.UserAgents, func(i, j int) bool {
		a, b := rep.UserAgents[i], rep.UserAgents[j]
		return riskFirst(a.AtRisk, b.AtRisk, a.Requests, b.Requests, a.UserAgent, b.UserAgent)
	})
	return rep, nil
}

// riskFirst orders report rows: most requests at risk first, then most requests, then by name.
func riskFirst(riskA, riskB, reqA, reqB int64, nameA, nameB string) bool {
	if riskA != riskB {
		return riskA > riskB
	}
	if reqA != reqB {
		return reqA > reqB
	}
	return nameA < nameB
}

func agentEntry(agents map[string]*UserAgentTraffic, ua string) *UserAgentTraffic {
	if ua == "" {
		ua = "<none>"
	}
	if a, ok := agents[ua]; ok {
		return a
	}
	if len(agents) >= maxUserAgents {
		ua = "<other>"
		if a, ok := agents[ua]; ok {
			return a
		}
	}
	a := &UserAgentTraffic{UserAgent: ua}
	agents[ua] = a
	return a
}

func appendStep(steps []int, n int) []int {
	if len(steps) > 0 && steps[len(steps)-1] == n {
		return steps
	}
	for _, s := range steps {
		if s == n {
			return steps
		}
	}
	return append(steps, n)
}

// recentIDs is how many audit IDs replay remembers to recognise the second event of a proxied
// request: both are logged within the request's duration, so a window of the last IDs
// suffices, and memory stays bounded whatever the log's size. Logs given one after another
// are one stream to it: two events in different logs are joined only when fewer than
// recentIDs events with an ID lie between them in that stream.
const recentIDs = 1 << 16

// seenEvent is what the join keeps of an event.
type seenEvent struct {
	server      string
	method, uri string
	agent       string
	code        int
	received    time.Time
}

// idEntry is an audit ID in the window: its first two events and how many there were.
type idEntry struct {
	id            string
	first, second seenEvent
	events        int
}

// recentIDSet is a bounded set of the last audit IDs seen. done, when set, is called with
// each entry as it leaves the window (and, by flush, with those still in it), oldest first.
type recentIDSet struct {
	seen map[string]int // index in ring
	ring []idEntry      // grows to n entries, then wraps
	n    int
	next int
	done func(*idEntry)
}

func newRecentIDs(n int) *recentIDSet {
	return &recentIDSet{seen: make(map[string]int, n), n: n}
}

// repeated reports whether id was among the last IDs, and remembers it. An empty ID (a request
// list, or an event without one) is never repeated.
func (r *recentIDSet) repeated(id string) bool {
	return r.see(id, seenEvent{})
}

// see is repeated, keeping ev for the join.
func (r *recentIDSet) see(id string, ev seenEvent) bool {
	if id == "" {
		return false
	}
	if i, ok := r.seen[id]; ok {
		e := &r.ring[i]
		if e.events++; e.events == 2 {
			e.second = ev
		}
		return true
	}
	if len(r.ring) < r.n {
		r.ring = append(r.ring, idEntry{id: id, first: ev, events: 1})
		r.seen[id] = len(r.ring) - 1
		return false
	}
	if old := &r.ring[r.next]; old.id != "" {
		delete(r.seen, old.id)
		if r.done != nil {
			r.done(old)
		}
	}
	r.ring[r.next] = idEntry{id: id, first: ev, events: 1}
	r.seen[id] = r.next
	r.next = (r.next + 1) % len(r.ring)
	return false
}

// flush hands every entry still in the window to done, oldest first.
func (r *recentIDSet) flush() {
	for k := range len(r.ring) {
		e := &r.ring[(r.next+k)%len(r.ring)]
		if e.id != "" && r.done != nil {
			r.done(e)
		}
	}
}
