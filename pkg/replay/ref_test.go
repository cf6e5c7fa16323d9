package replay

// Replay as it was before it counted by blocks (replay.go): request by request, over any
// source of requests. It is the reference TestReplayMatchesReference and
// TestReplayBlocksMatchRequestByRequest compare Replay with.

import (
	"errors"
	"io"
	"slices"
	"sort"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// replay is how Replay counted before it counted by blocks: request by request, each parsed
// with route.ParseRequest. counted fills in the reader's counts at the end.
func replay(sim *simulate.Simulation, next func() (TrafficRequest, error), counted func(*Report), source, format string) (*Report, error) {
	rep := &Report{Source: source, Format: format}
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
		for _, srv := range s.Snapshot().Servers {
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
		if t := tq.Received; !t.IsZero() {
			if rep.From == nil || t.Before(*rep.From) {
				rep.From = &t
			}
			if rep.To == nil || t.After(*rep.To) {
				rep.To = &t
			}
		}
		if recent.see(tq.AuditID, idHash(tq.AuditID), seenEvent{server: tq.server, method: tq.Method, uri: tq.Path, agent: tq.UserAgent, code: tq.Code, received: tq.received}) {
			rep.ProxiedCopies++
			continue
		}
		rep.Requests++
		ua := agentEntry(agents, tq.UserAgent, maxUserAgents)
		ua.Requests++
		req, err := route.ParseRequest(tq.Method, tq.Path)
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
			gt = &GVRTraffic{GVR: key.gvr.String(), Removed: removedSet[key.gvr.String()], agents: map[string]*UserAgentTraffic{}}
			gvrs[key.gvr] = gt
		}
		gt.Requests++
		gtAgent := agentEntry(gt.agents, tq.UserAgent, maxAgentsPerGVR)
		gtAgent.Requests++
		failedSomewhere, failsServed := false, false
		failsAtStart := map[string]bool{} // the servers that answer it 404 or 503 at the start
		workedAtStart := false
		var startNames []string
		for i, st := range states {
			outcomes, ok := st.memo[key]
			if !ok {
				router := sim.Steps[i].Router()
				for _, name := range st.servers {
					d, _ := router.Decide(name, req) // reachable servers only: cannot fail
					outcomes = append(outcomes, d.Outcome)
				}
				st.memo[key] = outcomes
			}
			newly, works := false, false
			for j, o := range outcomes {
				works = works || !(o == mvp.NotFound || o == mvp.Unavailable)
				st.counts[st.servers[j]].addN(o, 1)
				fails := o == mvp.NotFound || o == mvp.Unavailable
				if fails && i == 0 {
					failsAtStart[st.servers[j]] = true
					startNames = append(startNames, st.servers[j])
				}
				if fails && st.served[key.gvr] {
					failsServed = true
					newly = newly || !failsAtStart[st.servers[j]]
				}
			}
			if i == 0 {
				workedAtStart = works
			}
			// It worked somewhere at the start and works on no reachable server now.
			newly = newly || (workedAtStart && !works && len(outcomes) > 0)
			if newly && st.served[key.gvr] {
				st.atRisk++
				gt.AtRiskSteps = appendStep(gt.AtRiskSteps, i)
				failedSomewhere = true
			}
		}
		if failedSomewhere {
			gt.AtRisk++
			ua.AtRisk++
			gtAgent.AtRisk++
		} else if failsServed && len(startNames) > 0 {
			gt.AlreadyFailing++
			for _, n := range startNames {
				if !slices.Contains(gt.FailingAtStart, n) {
					gt.FailingAtStart = append(gt.FailingAtStart, n)
				}
			}
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
