package route

import (
	"slices"

	"github.com/mvpctl/mvpctl/pkg/mvp"
)

// resolve is steps 8–9, the end of the apiserver's filter: resolve each candidate's endpoint
// (resolveServingLocation), answer the endpoint-resolution 503 when the era's rule says so
// (mvp.EndpointResolution503), else pick one resolvable peer at random (rand.Intn) — reported
// as the most common result with the others as alternatives. anyFailureIs503 is the SV-era
// rule (docs/behaviour.md §11.1); alive overrides, for the servers it names, whether their
// endpoint resolves.
func resolve(vd *verdict, cands []*serverView, anyFailureIs503 bool, alive map[*serverView]bool) proxyVerdict {
	p := proxyVerdict{anyFailureIs503: anyFailureIs503, peers: make([]string, 0, len(cands)), resolved: make([]Candidate, 0, len(cands))}
	for _, peer := range cands {
		c := tryPeer(vd, peer, alive)
		p.peers = append(p.peers, c.ID)
		if !c.Resolves {
			p.failed = append(p.failed, c)
			continue
		}
		p.resolved = append(p.resolved, c)
	}
	p.endpoint503 = mvp.EndpointResolution503(len(p.failed), len(p.resolved), anyFailureIs503)
	if p.endpoint503 || len(p.resolved) == 0 {
		return p
	}
	p.pick()
	return p
}

// tryPeer is what happens when the request goes to candidate peer: its endpoint does not
// resolve; it resolves but the peer does not answer (mvp.Transport503); the peer serves the
// GVR; or it lists the GVR in its /apis without serving it itself, and answers 404.
func tryPeer(vd *verdict, peer *serverView, alive map[*serverView]bool) Candidate {
	resolves, override := alive[peer]
	if !override {
		resolves = mvp.EndpointResolves(peer.srv)
	}
	c := Candidate{Server: peer.srv.Name, ID: peer.srv.ID, Address: peer.srv.PeerAdvertiseAddress, Resolves: resolves, Inferred: peer.inferred}
	if c.ID == "" {
		c.ID = peer.srv.Name
	}
	switch {
	case !resolves:
	case mvp.Transport503(peer.srv.Reachable):
		c.outcome, c.unavailable = mvp.Unavailable, mvp.Transport
	case peer.local.has(vd.gvr.id) && peer.servesSubresource(vd.gvr, vd.req.Info.Subresource):
		c.outcome = mvp.Proxied
	default:
		c.outcome, c.peer404 = mvp.Proxied, true
	}
	return c
}

// pick counts the distinct results of the resolved candidates and takes the most common one
// as the answer. Ties go to a successful proxy: the table shows where requests can go, and the
// alternatives say how often they fail.
func (p *proxyVerdict) pick() {
	p.counts = make([]int, 0, 2)
	for _, c := range p.resolved {
		res := candidateResult{c.outcome, c.unavailable}
		i := slices.Index(p.results, res)
		if i < 0 {
			i = len(p.results)
			p.results, p.counts = append(p.results, res), append(p.counts, 0)
		}
		p.counts[i]++
	}
	count := func(c Candidate) int {
		return p.counts[slices.Index(p.results, candidateResult{c.outcome, c.unavailable})]
	}
	p.best = p.resolved[0]
	for _, c := range p.resolved {
		nc, nb := count(c), count(p.best)
		if nc > nb || (nc == nb && c.outcome == mvp.Proxied && p.best.outcome != mvp.Proxied) {
			p.best = c
		}
	}
}

// applyProxy makes the resolution vd's outcome: the endpoint-resolution 503, the chosen peer's
// result, or — with no candidate at all — the local handler chain.
func (r *Router) applyProxy(vd *verdict) {
	p := &vd.proxy
	vd.stop = stopResolve
	for _, c := range p.resolved {
		vd.inferred = vd.inferred || c.Inferred
	}
	for _, c := range p.failed {
		vd.inferred = vd.inferred || c.Inferred
	}
	switch {
	case p.endpoint503:
		vd.outcome, vd.status, vd.unavailable = mvp.Unavailable, status(503), mvp.EndpointResolution
		vd.rule = mvp.RuleNoneResolves503
		if p.anyFailureIs503 && len(p.resolved) > 0 {
			vd.rule = mvp.RuleAnyUnresolved503
		}
		return
	case len(p.resolved) == 0: // SV era: entry lists only unknown servers and none failed; cannot happen
		r.serveLocally(vd)
		return
	}
	vd.outcome = p.best.outcome
	vd.rule = mvp.PeerChoiceRule(len(p.resolved))
	if p.best.outcome == mvp.Unavailable {
		vd.status, vd.unavailable, vd.rule = status(503), p.best.unavailable, mvp.RuleTransport503
	}
	for _, res := range p.results {
		if res != (candidateResult{p.best.outcome, p.best.unavailable}) {
			vd.alsoPossible = append(vd.alsoPossible, mvp.Answer{Outcome: res.outcome, Unavailable: res.unavailable})
		}
	}
}
