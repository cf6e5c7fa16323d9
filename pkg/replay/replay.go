package replay

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// decisionKey is what a decision depends on: the GVR and subresource of a resource request.
type decisionKey struct {
	gvr snapshot.GVR
	sub string
}

// Replay sends every request of tr through every step of sim. Requests are counted a block of
// the log at a time, by (user agent, request class), and decisions are memoised per step,
// server, GVR and subresource: the cost per request is its audit ID's look-up and a count.
func Replay(sim *simulate.Simulation, tr *Reader, source, format string) (*Report, error) {
	return ReplayLogs(sim, []*Reader{tr}, source, format)
}

// ReplayLogs replays the readers one after another, as one traffic: an audit ID seen in one
// log and again in another (within the window of recentIDs events) is one proxied request,
// replayed once and joined in the report's Proxied.
func ReplayLogs(sim *simulate.Simulation, trs []*Reader, source, format string) (*Report, error) {
	r := newReplayer(sim, source, format)
	for _, tr := range trs {
		for {
			b, err := tr.nextBlock()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, err
			}
			if err := r.block(b, tr.Server); err != nil {
				return nil, err
			}
		}
	}
	for _, tr := range trs {
		r.rep.Malformed += tr.Malformed
		r.rep.Skipped += tr.Skipped
		for _, e := range tr.Examples {
			if len(r.rep.MalformedExamples) < maxExamples {
				r.rep.MalformedExamples = append(r.rep.MalformedExamples, e)
			}
		}
	}
	return r.report(), nil
}

// replayer is the state of one replay.
type replayer struct {
	sim        *simulate.Simulation
	rep        *Report
	steps      []*replayStep
	gvrs       map[snapshot.GVR]*GVRTraffic
	agents     map[string]*UserAgentTraffic
	removedSet map[string]bool
	join       *join
	recent     *recentIDSet
	order      []int32 // scratch: a block's pairs in the order of their first counted event
	// resolved is what count found for each pair it met: the workers make few pairs and use
	// them block after block. Bounded like the workers' tables.
	resolved map[*pairInfo]*resolvedPair
	// first and last are the earliest and latest raw requestReceivedTimestamp read, and
	// whether each has an apiserver's UTC form (utcStamp).
	first, last       string
	firstUTC, lastUTC bool
}

// resolvedPair is a pair's rows in the report and its outcomes at each step. None of them
// changes once found: agents and GVRs are never removed from the report, and an agent that
// went to "<other>" stays there.
type resolvedPair struct {
	ua       *UserAgentTraffic
	gt       *GVRTraffic
	gtAgent  *UserAgentTraffic // the user agent among gt's
	outcomes [][]mvp.Outcome   // by step
	atRisk   []bool            // by step: the request fails, on a server it works on at the start, while some server serves its GVR
	failed   bool              // at some step
	// already: it fails at some step while its GVR is served, but only on servers that fail it
	// at the start too (startFails).
	already    bool
	startFails []string
}

type replayStep struct {
	counts  []OutcomeCounts // by servers
	atRisk  int64
	servers []string // the reachable ones
	memo    map[decisionKey][]mvp.Outcome
	// served is every GVR some server of the step serves (reachable or not): a request
	// for a GVR nobody serves fails with or without an upgrade, and is not counted as
	// at risk (removed APIs are reported separately).
	served map[snapshot.GVR]bool
}

func newReplayer(sim *simulate.Simulation, source, format string) *replayer {
	r := &replayer{sim: sim, rep: &Report{Source: source, Format: format}, gvrs: map[snapshot.GVR]*GVRTraffic{},
		agents: map[string]*UserAgentTraffic{}, removedSet: map[string]bool{}, join: newJoin(), recent: newRecentIDs(recentIDs),
		resolved: map[*pairInfo]*resolvedPair{}}
	for _, s := range sim.Steps {
		st := &replayStep{memo: map[decisionKey][]mvp.Outcome{}, served: map[snapshot.GVR]bool{}}
		for _, srv := range s.Snapshot().Servers {
			for _, res := range srv.Resources {
				st.served[res.GVR()] = true
			}
			if srv.Reachable {
				st.servers = append(st.servers, srv.Name)
			}
		}
		st.counts = make([]OutcomeCounts, len(st.servers))
		r.steps = append(r.steps, st)
	}
	for _, g := range sim.Removed {
		r.removedSet[g] = true
	}
	r.recent.done = r.join.add
	return r
}

// block counts a block's requests. Each event's audit ID is looked up in file order (a proxied
// copy is not counted); the others are counted by pair, in the order of each pair's first
// counted event, which is the order in which counting event by event would first meet each
// user agent, GVR and step at risk.
func (r *replayer) block(b *block, server string) error {
	for i := range b.events {
		e := &b.events[i]
		r.span(e.received)
		if e.auditID != "" && r.recent.see(e.auditID, e.idHash, seenEvent{server: server, method: e.method, uri: e.uri, agent: e.agent, code: e.code, received: e.received}) {
			r.rep.ProxiedCopies++
			continue
		}
		p := &b.pairs[e.pair]
		if p.n == 0 {
			p.sample = int32(i)
			r.order = append(r.order, e.pair)
		}
		p.n++
	}
	for _, i := range r.order {
		p := &b.pairs[i]
		if err := r.count(p, &b.events[p.sample]); err != nil {
			return err
		}
		p.n = 0
	}
	r.order = r.order[:0]
	return nil
}

// count counts p.n requests of one pair; sample is the first of them, whose request is what
// the routers decide on when the pair's GVR and subresource are new to a step.
func (r *replayer) count(p *blockPair, sample *blockEvent) error {
	n := p.n
	r.rep.Requests += n
	switch p.kind {
	case route.KindUnparsable:
		agentEntry(r.agents, p.agent, maxUserAgents).Requests += n
		r.rep.Unparsable += n
		return nil
	case route.KindNonResource:
		agentEntry(r.agents, p.agent, maxUserAgents).Requests += n
		r.rep.NonResource += n
		return nil
	}
	rp := r.resolved[p.pairInfo]
	if rp == nil {
		var err error
		if rp, err = r.resolve(p.pairInfo, sample); err != nil {
			return err
		}
	}
	rp.ua.Requests += n
	rp.gt.Requests += n
	rp.gtAgent.Requests += n
	for i, st := range r.steps {
		for j, o := range rp.outcomes[i] {
			st.counts[j].addN(o, n)
		}
		if rp.atRisk[i] {
			st.atRisk += n
			rp.gt.AtRiskSteps = appendStep(rp.gt.AtRiskSteps, i)
		}
	}
	if rp.failed {
		rp.gt.AtRisk += n
		rp.ua.AtRisk += n
		rp.gtAgent.AtRisk += n
	}
	if rp.already {
		rp.gt.AlreadyFailing += n
		for _, s := range rp.startFails {
			if !slices.Contains(rp.gt.FailingAtStart, s) {
				rp.gt.FailingAtStart = append(rp.gt.FailingAtStart, s)
			}
		}
	}
	return nil
}

// resolve finds a resource request pair's rows and outcomes, deciding them at the steps that
// have not seen its GVR and subresource yet.
func (r *replayer) resolve(p *pairInfo, sample *blockEvent) (*resolvedPair, error) {
	key := p.key
	rp := &resolvedPair{ua: agentEntry(r.agents, p.agent, maxUserAgents), gt: r.gvrs[key.gvr]}
	if rp.gt == nil {
		rp.gt = &GVRTraffic{GVR: key.gvr.String(), Removed: r.removedSet[key.gvr.String()], agents: map[string]*UserAgentTraffic{}}
		r.gvrs[key.gvr] = rp.gt
	}
	rp.gtAgent = agentEntry(rp.gt.agents, p.agent, maxAgentsPerGVR)
	for i, st := range r.steps {
		outcomes, ok := st.memo[key]
		if !ok {
			req, err := route.ParseRequest(sample.method, sample.uri)
			if err != nil || !req.Info.IsResourceRequest || (decisionKey{req.Info.GVR(), req.Info.Subresource}) != key {
				return nil, fmt.Errorf("replay: %s %s was classified as %v, which route.ParseRequest does not confirm (%v)", sample.method, sample.uri, key, err)
			}
			router := r.sim.Steps[i].Router()
			for _, name := range st.servers {
				d, _ := router.Decide(name, req) // reachable servers only: cannot fail
				outcomes = append(outcomes, d.Outcome)
			}
			st.memo[key] = outcomes
		}
		rp.outcomes = append(rp.outcomes, outcomes)
	}
	r.judge(rp, key.gvr)
	if len(r.resolved) >= 4*cacheSize {
		clear(r.resolved)
	}
	r.resolved[p] = rp
	return rp, nil
}

// judge decides, step by step, whether a request pair is harmed by the upgrade while some
// server serves its GVR: it fails on a server it works on at the start (step 0), or it works
// on some server at the start and on no reachable server at the step (the servers it worked
// on are down, and a client sent to one lands on another). A pair that fails at such a step
// only where it fails at the start too is already failing, not harmed.
func (r *replayer) judge(rp *resolvedPair, gvr snapshot.GVR) {
	failing := func(o mvp.Outcome) bool { return o == mvp.NotFound || o == mvp.Unavailable }
	atStart := map[string]bool{}
	for j, o := range rp.outcomes[0] {
		if failing(o) {
			atStart[r.steps[0].servers[j]] = true
			rp.startFails = append(rp.startFails, r.steps[0].servers[j])
		}
	}
	workedAtStart := len(rp.startFails) < len(rp.outcomes[0])
	fails := false
	for i, st := range r.steps {
		harmed, works := false, false
		for j, o := range rp.outcomes[i] {
			works = works || !failing(o)
			if failing(o) && st.served[gvr] {
				fails = true
				harmed = harmed || !atStart[st.servers[j]]
			}
		}
		harmed = harmed || (st.served[gvr] && workedAtStart && !works && len(rp.outcomes[i]) > 0)
		rp.atRisk = append(rp.atRisk, harmed)
		rp.failed = rp.failed || harmed
	}
	rp.already = fails && !rp.failed && len(rp.startFails) > 0
}

func (r *replayer) report() *Report {
	rep := r.rep
	if from, to := parseTimestamp(r.first), parseTimestamp(r.last); !from.IsZero() && !to.IsZero() {
		rep.From, rep.To = &from, &to
	}
	r.recent.flush()
	rep.Proxied = r.join.report()
	for i, st := range r.steps {
		byServ := map[string]OutcomeCounts{}
		for j, name := range st.servers {
			byServ[name] = st.counts[j]
		}
		rep.Steps = append(rep.Steps, StepTraffic{N: r.sim.Steps[i].N, Step: r.sim.Steps[i].Step, ByServ: byServ, AtRisk: st.atRisk})
	}
	for _, g := range r.gvrs {
		rep.GVRs = append(rep.GVRs, *g)
	}
	sort.Slice(rep.GVRs, func(i, j int) bool {
		a, b := rep.GVRs[i], rep.GVRs[j]
		return riskFirst(a.AtRisk, b.AtRisk, a.Requests, b.Requests, a.GVR, b.GVR)
	})
	rep.UserAgents = sortedAgents(r.agents)
	return rep
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
	received    string // raw RFC 3339, read when the event is joined
}
