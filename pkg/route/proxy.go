package route

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
)

// resolveAndProxy is steps 8–9: resolve each candidate's endpoint, then pick one at random.
// anyFailureIs503 is the SV-era rule (docs/behaviour.md §11.1). endpointAlive overrides, for the servers it
// names, whether their endpoint resolves.
func (r *Router) resolveAndProxy(v *serverView, req Request, gvr gvrKey, cands []*serverView, anyFailureIs503 bool, endpointAlive map[*serverView]bool, d *Decision, st *steps) {
	var resolved, failed []Candidate
	var fixes []string
	for _, p := range cands {
		resolves, override := endpointAlive[p]
		if !override {
			resolves = mvp.EndpointResolves(p.srv)
		}
		c := Candidate{Server: p.srv.Name, ID: p.srv.ID, Address: p.srv.PeerAdvertiseAddress, Resolves: resolves, Inferred: p.inferred}
		if c.ID == "" {
			c.ID = p.srv.Name
		}
		d.Peers = append(d.Peers, c.ID)
		words := !st.quiet // a table cell needs the outcomes, not the words (steps, results, fixes)
		if c.Inferred {
			d.Inferred = true
			if words {
				st.add("peer %s could not be read; that it serves %s is inferred from a reachable server's peer-aggregated discovery", p.srv.Name, gvr)
				st.say("", "%s could not be read when the snapshot was taken; that it serves %s is inferred from what another apiserver's /apis lists", p.srv.Name, gvr)
			}
		}
		if !c.Resolves {
			if words {
				why, plain, fix := unresolvable(p)
				c.Result = fmt.Sprintf("endpoint does not resolve (%s)", why)
				st.say("", "%s serves %s, but its address cannot be resolved: %s", c.PeerName(), gvr, plain)
				fixes = append(fixes, fix)
			}
			failed = append(failed, c)
			continue
		}
		switch {
		case !p.srv.Reachable:
			c.outcome, c.unavailable = mvp.Unavailable, mvp.Transport
			if words {
				st.say(mvp.RuleTransport503, "%s's address %s resolves, but %s does not answer there", c.PeerName(), orUnknownAddress(c.Address), c.PeerName())
				fixes = append(fixes, fmt.Sprintf("make %s's advertised address %s reachable from %s (bring %s back up)", c.PeerName(), orUnknownAddress(c.Address), v.srv.Name, c.PeerName()))
				c.Result = "503: the peer's endpoint lease lives but the peer does not answer (" + mvp.TransportMessagePrefix + ")"
			}
		case p.local.has(gvr.id) && p.servesSubresource(gvr, req.Info.Subresource):
			c.outcome = mvp.Proxied
			if words {
				st.say("", "%s serves %s and its address %s resolves", c.PeerName(), gvr, orUnknownAddress(c.Address))
				c.Result = "the peer serves it: its answer is passed back"
			}
		default:
			c.outcome, c.peer404 = mvp.Proxied, true
			if words {
				st.say(mvp.RuleLearnsAggregatedView, "%s lists %s in its /apis but does not serve it itself: proxied there, the request meets a 404", c.PeerName(), gvr)
				c.Result = "404 from the peer: the request arrives with the loop-prevention header and the peer does not serve it itself"
			}
		}
		resolved = append(resolved, c)
	}
	d.Candidates = append(resolved, failed...)
	if !st.quiet {
		st.add("candidate peers: %s", candidateList(d.Candidates))
	}

	if len(failed) > 0 && (anyFailureIs503 || len(resolved) == 0) {
		d.Outcome, d.Status, d.Unavailable = mvp.Unavailable, status(503), mvp.EndpointResolution
		if st.quiet {
			return
		}
		rule := "no candidate's endpoint resolves"
		if anyFailureIs503 && len(resolved) > 0 {
			rule = "a candidate's endpoint does not resolve, and in " + mvp.RuleAnyUnresolved503.Versions() + " any failure is fatal"
		}
		st.add("%s: 503 %q", rule, mvp.EndpointResolutionMessage)
		if anyFailureIs503 && len(resolved) > 0 {
			st.say(mvp.RuleAnyUnresolved503, "one candidate's address cannot be resolved, and that alone fails the request: 503 %q", mvp.EndpointResolutionMessage)
		} else {
			st.say(mvp.RuleNoneResolves503, "no candidate's address can be resolved: 503 %q", mvp.EndpointResolutionMessage)
		}
		d.Plain.Answer = fmt.Sprintf("503 Service Unavailable — %s %s %s, but %s address cannot be resolved", candidateNames(failed), serves(len(failed)), r.gvOrGVR(v, gvr), their(len(failed)))
		d.Plain.WhyNot = append(d.Plain.WhyNot, fixes...)
		d.Reason = "503 (endpoint resolution): " + rule
		return
	}
	if len(resolved) == 0 { // SV era: entry lists only unknown servers and none failed; cannot happen
		r.localOutcome(v, req, gvr, d, st, "no peer to proxy to", "no peer to proxy to")
		return
	}

	// The random choice: report the most common result, and the others as alternatives.
	type result struct {
		outcome     mvp.Outcome
		unavailable string
	}
	var results []result // distinct, few: a candidate's outcome and kind of 503
	counts := make([]int, len(resolved))
	countOf := func(c Candidate) *int {
		r := result{c.outcome, c.unavailable}
		i := slices.Index(results, r)
		if i < 0 {
			i = len(results)
			results = append(results, r)
		}
		return &counts[i]
	}
	for _, c := range resolved {
		*countOf(c)++
	}
	// Ties go to a successful proxy: the table shows where requests can go, and the
	// alternatives say how often they fail.
	best := resolved[0]
	for _, c := range resolved {
		nc, nb := *countOf(c), *countOf(best)
		if nc > nb || (nc == nb && c.outcome == mvp.Proxied && best.outcome != mvp.Proxied) {
			best = c
		}
	}
	d.Outcome = best.outcome
	if best.outcome == mvp.Unavailable {
		d.Status, d.Unavailable = status(503), best.unavailable
	}
	if st.quiet {
		return
	}
	for i, r := range results {
		if r != (result{best.outcome, best.unavailable}) {
			key := mvp.OutcomeKey(r.outcome, r.unavailable)
			d.Alternatives = append(d.Alternatives, fmt.Sprintf("%s with probability %d/%d", key, counts[i], len(resolved)))
			d.AlsoPossible = append(d.AlsoPossible, key)
		}
	}
	sort.Strings(d.Alternatives)
	st.add("the apiserver picks one of %d resolvable peer(s) uniformly at random", len(resolved))
	header := strings.ToLower(mvp.LoopPreventionHeader)
	if len(resolved) > 1 {
		st.say(mvp.RuleRandomPeer, "%s picks one of %s at random and forwards the request with %s: true", v.srv.Name, candidateNames(resolved), header)
	} else {
		st.say(mvp.RuleLoopHeader, "%s forwards the request to %s with %s: true (so it is not proxied again) and passes the answer back", v.srv.Name, resolved[0].PeerName(), header)
	}
	if best.outcome == mvp.Unavailable {
		d.Reason = "503 (transport): the chosen peer does not answer"
		d.Plain.Answer = fmt.Sprintf("503 Service Unavailable — %s serves %s, but does not answer at its address", best.PeerName(), r.gvOrGVR(v, gvr))
		d.Plain.WhyNot = append(d.Plain.WhyNot, fixes...)
		return
	}
	d.Reason = "proxied to " + resolvedNames(resolved)
	var serving, answering404 []Candidate
	for _, c := range resolved {
		if c.outcome == mvp.Proxied && c.peer404 {
			answering404 = append(answering404, c)
		} else if c.outcome == mvp.Proxied {
			serving = append(serving, c)
		}
	}
	target := plainResolvedNames(resolved)
	switch {
	case len(serving) > 0:
		d.Plain.Answer = fmt.Sprintf("proxied to %s — %s does not serve %s itself; %s %s", target, v.srv.Name, r.gvOrGVR(v, gvr), candidateNames(serving), does(len(serving)))
	default:
		d.Plain.Answer = fmt.Sprintf("proxied to %s, which answers 404 — %s lists %s but does not serve it itself", target, candidateNames(answering404), gvr)
		d.Plain.WhyNot = append(d.Plain.WhyNot, fmt.Sprintf("upgrade %s, so that it learns from each peer's own discovery rather than from what the peer lists in its /apis", v.srv.Name))
	}
}
