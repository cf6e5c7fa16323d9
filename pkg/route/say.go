package route

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
)

// word turns a verdict into its Decision's words: the numbered steps in the apiserver's terms,
// the same decision in plain words (rules with their versions), the reason, each candidate's
// result, the alternatives, what would make a 404 or 503 succeed, and the hazards. It decides
// nothing: everything it says is in the verdict.
func (r *Router) word(vd *verdict, d *Decision) {
	var st steps
	if r.sayFilter(vd, d, &st) {
		st.add("caches assumed synced (before sync, every request is handled locally)")
		st.add("routing key %s (core group keyed %s in this era; subresource, name, namespace and verb are ignored)", keyString(vd.gvr.GVR, vd.v.era), vd.v.era.CoreKey())
		if vd.v.era.RoutesOnStorageVersions() {
			r.sayStorageVersion(vd, d, &st)
		} else {
			r.sayDiscovery(vd, d, &st)
		}
	}
	d.Steps = st.list
	d.Plain.Steps = st.plain
	for _, c := range d.Candidates {
		if c.Resolves && c.outcome == mvp.Proxied {
			d.Plain.ProxiedTo = append(d.Plain.ProxiedTo, c.PeerName())
		}
	}
	for _, a := range d.Alternatives {
		d.Plain.Alternatives = append(d.Plain.Alternatives, plainAlternative.Replace(a))
	}
	d.Hazards = r.hazards(vd.v)
}

// sayFilter words steps 0–3: the server, whether its proxy filter is installed, and the
// filter's pass-through checks; true when the procedure went on to look for peers.
func (r *Router) sayFilter(vd *verdict, d *Decision, st *steps) bool {
	v, req, name := vd.v, vd.req, vd.v.srv.Name
	st.add("server %s runs %s: %s", name, v.srv.Version, mvp.Describe(v.version))
	if vd.newer {
		st.say("", "%s runs %s, newer than the rules mvpctl knows: assumed to behave like 1.%d", name, v.srv.Version, mvp.NewestKnownMinor)
	} else if mvp.ProvisionalRules(v.version) {
		st.say("", "%s runs %s: %s", name, v.srv.Version, mvp.Describe(v.version))
	}
	stated := statedNote(v.srv)
	switch vd.stop {
	case stopNoProxy:
		st.add("Kubernetes %s predates the Mixed Version Proxy (%s): no proxy filter", v.version.MinorString(), mvp.RuleFilter.Versions())
		st.say(mvp.RuleNoProxy, "%s runs Kubernetes %s, which has no Mixed Version Proxy: it answers only for what it serves itself", name, v.version.MinorString())
		r.notFoundFix(v, req, vd.gvr, fmt.Sprintf("upgrade %s to a version with the Mixed Version Proxy (%s) and set it up", name, mvp.RuleFilter.Versions()), d)
		r.sayLocal(vd, d, st, "no proxy filter "+mvp.RuleNoProxy.Versions(), fmt.Sprintf("%s has no Mixed Version Proxy", name))
		return false
	case stopGateOff:
		st.add("feature gate %s is off%s%s: no proxy filter", mvp.FeatureGate, assumedNote(vd.gateAssumed, "the version's default"), stated)
		gateWhy := "the " + mvp.FeatureGate + " gate is off"
		if vd.gateAssumed {
			gateWhy += fmt.Sprintf(" (assumed: it is off by default in %s)", mvp.RuleGateDefaultOff.Versions())
		}
		st.say(mvp.RuleFilter, "the proxy filter is not installed: %s%s", gateWhy, stated)
		r.notFoundFix(v, req, vd.gvr, fmt.Sprintf("turn on --feature-gates=%s=true and set --peer-ca-file on %s so its proxy filter is installed", mvp.FeatureGate, name), d)
		r.sayLocal(vd, d, st, "the proxy filter is absent (feature gate off)", fmt.Sprintf("%s's proxy filter is not installed (feature gate off)", name))
		return false
	case stopNoPeerCA:
		st.add("feature gate on%s, but no --peer-ca-file: no proxy filter%s%s", assumedNote(vd.gateAssumed, "the version's default"),
			assumedNote(vd.filterAssumed, "not observed; kube-apiserver has no --peer-ca-file unless it is set"), stated)
		caWhy := "--peer-ca-file is not set"
		if vd.filterAssumed {
			caWhy += " (assumed: it has no default)"
		}
		st.say(mvp.RuleFilter, "the proxy filter is not installed: the %s gate is on, but %s%s", mvp.FeatureGate, caWhy, stated)
		r.notFoundFix(v, req, vd.gvr, fmt.Sprintf("set --peer-ca-file on %s so its proxy filter is installed", name), d)
		r.sayLocal(vd, d, st, "the proxy filter is absent (no --peer-ca-file)", fmt.Sprintf("%s's proxy filter is not installed (no --peer-ca-file)", name))
		return false
	}
	st.add("proxy filter installed (gate on, --peer-ca-file set)%s", stated)
	st.say(mvp.RuleFilter, "the proxy filter is installed: the %s gate is on and --peer-ca-file is set%s", mvp.FeatureGate, stated)
	d.Plain.FilterInstalled = true
	header := strings.ToLower(mvp.LoopPreventionHeader)
	switch vd.stop {
	case stopNonResource:
		st.add("%s %s is not a resource request (discovery, health, version, metrics...): never proxied", req.Method, req.Path)
		st.say(mvp.RuleNonResource, "%s is not a resource request (discovery, health, version, metrics): it is never proxied", req.Path)
		r.sayLocal(vd, d, st, "non-resource request: served by the local handler chain", "")
		return false
	case stopLoopHeader:
		st.add("header %s: true is present: served locally, never proxied again", header)
		st.say(mvp.RuleLoopHeader, "the request carries %s: true, so a peer already proxied it: %s answers it itself and never proxies it again", header, name)
		if !v.local.has(vd.gvr.id) {
			d.Plain.WhyNot = append(d.Plain.WhyNot, fmt.Sprintf("send the request without %s (only apiservers set it)", header))
		}
		r.sayLocal(vd, d, st, "the loop-prevention header forces local handling", "the request was already proxied once")
		return false
	}
	return true
}

// sayDiscovery words steps 6–9 of the DISC eras.
func (r *Router) sayDiscovery(vd *verdict, d *Decision, st *steps) {
	v, gvr, name := vd.v, vd.gvr, vd.v.srv.Name
	if vd.stop == stopServesItself {
		st.add("%s is in the server's local discovery cache", gvr)
		st.say(mvp.RuleDiscoveryRouting, "%s serves %s itself (its own discovery lists it), so its own handler answers", name, gvr)
		r.sayLocal(vd, d, st, "served by this server", "")
		return
	}
	st.add("%s is not in the server's local discovery cache", gvr)
	st.say(mvp.RuleDiscoveryRouting, "%s does not serve %s itself (its own discovery does not list it), so it looks for a peer that does", name, r.gvOrGVR(v, gvr))
	if vd.stop == stopExcluded {
		why := vd.excludedBy
		st.add("%s belongs to %s: excluded from peers' discovery (%s), never proxied", gvr.GroupVersion(), why, mvp.RuleExclusion.Versions())
		st.say(mvp.RuleExclusion, "%s belongs to %s: such group/versions are never proxied", gvr.GroupVersion(), why)
		if r.aggregatedFor(vd.req) == nil { // the aggregator's answer says what to check instead
			d.Plain.WhyNot = append(d.Plain.WhyNot, fmt.Sprintf("%s must serve %s itself: %s's group/versions are never proxied", name, gvr, why))
		}
		text := fmt.Sprintf("%s is %s's group/version, which is never proxied", gvr.GroupVersion(), why)
		r.sayLocal(vd, d, st, text, text)
		return
	}
	for _, s := range vd.skipped {
		if s.unlearned {
			st.add("peer %s serves %s, but %s has not learned it: %s", s.p.srv.Name, gvr, name, s.why)
		} else {
			notAPeerStep(s.p, s.why, st)
		}
	}
	sayLearned(vd, st)
	switch vd.stop {
	case stopUnlearned:
		n, cause := len(vd.unlearned), vd.causes[0]
		st.add("most likely cause: %s (to confirm: %s)", cause.Text, cause.Confirm)
		st.say(mvp.RuleDiscoveryRouting, "%s %s %s, but %s has not learned so from %s discovery; most likely %s (to confirm: %s)",
			viewNames(vd.unlearned), serves(n), gvr, name, their(n), cause.Text, cause.Confirm)
		for _, c := range vd.causes {
			if c.Fix != "" {
				d.Plain.WhyNot = append(d.Plain.WhyNot, c.Fix)
			}
		}
		r.sayLocal(vd, d, st, fmt.Sprintf("%s has not learned that %s %s %s: %s", name, viewNames(vd.unlearned), serves(n), gvr.GroupVersion(), cause.Text),
			fmt.Sprintf("%s %s %s, but %s has not learned so", viewNames(vd.unlearned), serves(n), gvr.GroupVersion(), name))
	case stopNoPeer:
		st.add("no peer's discovery lists %s", gvr)
		st.say(mvp.RuleDiscoveryRouting, "no peer's discovery lists %s", gvr)
		r.enableFix(v, gvr, d)
		r.sayLocal(vd, d, st, "no peer serves it", fmt.Sprintf("no apiserver serves %s", gvr))
	default:
		r.sayResolve(vd, d, st)
	}
}

// notAPeerStep says why p is not a peer at all, where that is worth a step.
func notAPeerStep(p *serverView, why mvp.PeerExclusion, st *steps) {
	switch why {
	case mvp.PeerIsSelf:
		st.add("peer %s has this server's identity (the same hostname): each takes the other for itself, never a peer", p.srv.Name)
		st.say("", "%s has the same identity (hostname) as this server, so it is never taken for a peer", p.srv.Name)
	case mvp.PeerHasNoLease:
		st.add("peer %s has no identity lease (stopped gracefully, or expired): not a peer", p.srv.Name)
		st.say("", "%s has no identity lease (stopped, or its lease expired), so it is not a peer", p.srv.Name)
	case mvp.PeerLeaseHasNoOwner:
		st.add("peer %s's identity lease has no holderIdentity: not a peer", p.srv.Name)
		st.say("", "%s's identity lease has no holder, so it is not a peer", p.srv.Name)
	case mvp.PeerDroppedAtRebuild:
		st.add("peer %s stopped answering and this server has rebuilt its peer-discovery cache since (an identity lease was created, deleted or changed holder): the rebuild could not fetch %s's discovery and dropped it", p.srv.Name, p.srv.Name)
		st.say(mvp.RuleDiscoveryRouting, "%s stopped answering, and this server rebuilt its list of what peers serve since then (another apiserver started, restarted or stopped): %s is no longer on it", p.srv.Name, p.srv.Name)
	case mvp.PeerDroppedNotRelearned:
		st.add("peer %s was dropped from this server's peer-discovery cache at a rebuild while it was down; it restarted on %s, which renews its identity lease with the same holder, and only a lease created, deleted or with a new holder makes a rebuild: it stays dropped until the next one", p.srv.Name, p.srv.Version)
		st.say(mvp.RuleDiscoveryRouting, "%s was dropped from this server's list of what peers serve while it was down, and its restart on %s did not make this server rebuild the list: it is not on it until an apiserver joins, or one of %s restarts or stops", p.srv.Name, p.srv.Version, mvp.StartDeletesIdentityLeaseVersions())
	case mvp.PeerGateOff:
		st.add("peer %s has the feature gate off: it writes no endpoint lease, so its discovery is never fetched", p.srv.Name)
		st.say(mvp.RuleFilter, "%s has the %s gate off: it publishes no address, so no peer asks what it serves", p.srv.Name, mvp.FeatureGate)
	}
}

// sayLearned words what the server's record of its learned peers said of the candidates.
func sayLearned(vd *verdict, st *steps) {
	v, gvr, name := vd.v, vd.gvr, vd.v.srv.Name
	switch vd.learned {
	case learnedNotListed:
		st.add("%s's own peer-aggregated /apis does not list %s: it has not learned it from %s", name, gvr, viewNames(vd.listed))
		st.say(mvp.RulePeerAggregatedDiscovery, "%s's /apis, which lists what it learned from its peers, does not list %s", name, gvr)
	case learnedListed:
		st.add("%s's own peer-aggregated /apis lists %s: learned from a peer", name, gvr)
		st.say(mvp.RulePeerAggregatedDiscovery, "%s's /apis, which lists what it learned from its peers, lists %s: it knows a peer serves it", name, gvr)
	case learnedAssumedOldView:
		st.add("assumed: %s has fetched %s's discovery (%s keeps no peer-aggregated /apis to check it by)", name, viewNames(vd.listed), v.version.MinorString())
		st.say(mvp.RuleLearnsAggregatedView, "assumed: %s has fetched %s's discovery (Kubernetes %s keeps no record to check it by)", name, viewNames(vd.listed), v.version.MinorString())
	case learnedAssumedUnrecorded:
		st.add("assumed: %s has fetched %s's discovery (its peer-aggregated /apis is not recorded)", name, viewNames(vd.listed))
		st.say(mvp.RuleDiscoveryRouting, "assumed: %s has fetched %s's discovery (the snapshot does not record what it learned)", name, viewNames(vd.listed))
	}
}

// sayStorageVersion words steps 6–9 of the SV eras.
func (r *Router) sayStorageVersion(vd *verdict, d *Decision, st *steps) {
	v, gvr, name, source := vd.v, vd.gvr, vd.v.srv.Name, vd.svSource
	switch vd.stop {
	case stopNoStorageVersion:
		st.add("no StorageVersion lists %s (CRDs, aggregated APIs and resources without storage have none)%s", gvr, source)
		st.say(mvp.RuleStorageVersionRouting, "no StorageVersion object lists %s (CRDs, aggregated APIs and resources without storage have none), so %s looks for no peer", gvr, name)
		r.enableFix(v, gvr, d)
		r.sayLocal(vd, d, st, "no StorageVersion entry: handled locally", fmt.Sprintf("no StorageVersion object lists %s", gvr))
	case stopStorageVersionSelf:
		st.add("the StorageVersion for %s lists this server%s", gvr, source)
		st.say(mvp.RuleStorageVersionRouting, "the StorageVersion object of %s lists %s: it serves it itself", gvr, name)
		r.sayLocal(vd, d, st, "this server is in the StorageVersion entry", "")
	default:
		st.add("the StorageVersion for %s lists other servers: %s%s", gvr, strings.Join(vd.svIDs, ", "), source)
		st.say(mvp.RuleStorageVersionRouting, "the StorageVersion object of %s lists %s, not %s: it looks for one of them", gvr, viewNames(vd.cands), name)
		r.sayResolve(vd, d, st)
	}
}

// sayResolve words steps 8–9: each candidate tried, then the endpoint-resolution 503 or the
// peer choice.
func (r *Router) sayResolve(vd *verdict, d *Decision, st *steps) {
	if vd.window != nil {
		vd.window.sayWindow(st)
	}
	p := &vd.proxy
	var fixes []string
	ri, fi := 0, 0
	for _, peer := range vd.cands {
		var c *Candidate // d.Candidates are the resolved ones, then the failed ones, each in order
		if ri < len(p.resolved) && p.resolved[ri].Server == peer.srv.Name {
			c, ri = &d.Candidates[ri], ri+1
		} else {
			c, fi = &d.Candidates[len(p.resolved)+fi], fi+1
		}
		if fix := sayCandidate(vd, peer, c, st); fix != "" {
			fixes = append(fixes, fix)
		}
	}
	st.add("candidate peers: %s", candidateList(d.Candidates))
	switch {
	case p.endpoint503:
		r.sayEndpoint503(vd, d, st, fixes)
	case len(p.resolved) == 0:
		r.sayLocal(vd, d, st, "no peer to proxy to", "no peer to proxy to")
	default:
		r.sayPick(vd, d, st, fixes)
	}
	if vd.window != nil {
		vd.window.sayAlternative(vd, d, st)
	}
}

// sayCandidate words what happens when the request goes to peer (c is its candidate, whose
// result it sets), and returns what would make it answer, if it does not.
func sayCandidate(vd *verdict, peer *serverView, c *Candidate, st *steps) (fix string) {
	gvr, name := vd.gvr, vd.v.srv.Name
	if c.Inferred {
		st.add("peer %s could not be read; that it serves %s is inferred from a reachable server's peer-aggregated discovery", peer.srv.Name, gvr)
		st.say("", "%s could not be read when the snapshot was taken; that it serves %s is inferred from what another apiserver's /apis lists", peer.srv.Name, gvr)
	}
	switch {
	case !c.Resolves:
		why, plain, fix := unresolvable(peer)
		c.Result = fmt.Sprintf("endpoint does not resolve (%s)", why)
		st.say("", "%s serves %s, but its address cannot be resolved: %s", c.PeerName(), gvr, plain)
		return fix
	case c.outcome == mvp.Unavailable:
		st.say(mvp.RuleTransport503, "%s's address %s resolves, but %s does not answer there", c.PeerName(), orUnknownAddress(c.Address), c.PeerName())
		c.Result = "503: the peer's endpoint lease lives but the peer does not answer (" + mvp.TransportMessagePrefix + ")"
		return fmt.Sprintf("make %s's advertised address %s reachable from %s (bring %s back up)", c.PeerName(), orUnknownAddress(c.Address), name, c.PeerName())
	case !c.peer404:
		st.say("", "%s serves %s and its address %s resolves", c.PeerName(), gvr, orUnknownAddress(c.Address))
		c.Result = "the peer serves it: its answer is passed back"
	default:
		st.say(mvp.RuleLearnsAggregatedView, "%s lists %s in its /apis but does not serve it itself: proxied there, the request meets a 404", c.PeerName(), gvr)
		c.Result = "404 from the peer: the request arrives with the loop-prevention header and the peer does not serve it itself"
	}
	return ""
}

// sayEndpoint503 words the endpoint-resolution 503.
func (r *Router) sayEndpoint503(vd *verdict, d *Decision, st *steps, fixes []string) {
	p := &vd.proxy
	rule := "no candidate's endpoint resolves"
	if vd.rule == mvp.RuleAnyUnresolved503 {
		rule = "a candidate's endpoint does not resolve, and in " + mvp.RuleAnyUnresolved503.Versions() + " any failure is fatal"
	}
	st.add("%s: 503 %q", rule, mvp.EndpointResolutionMessage)
	if vd.rule == mvp.RuleAnyUnresolved503 {
		st.say(mvp.RuleAnyUnresolved503, "one candidate's address cannot be resolved, and that alone fails the request: 503 %q", mvp.EndpointResolutionMessage)
	} else {
		st.say(mvp.RuleNoneResolves503, "no candidate's address can be resolved: 503 %q", mvp.EndpointResolutionMessage)
	}
	n := len(p.failed)
	d.Plain.Answer = fmt.Sprintf("503 Service Unavailable — %s %s %s, but %s address cannot be resolved", candidateNames(p.failed), serves(n), r.gvOrGVR(vd.v, vd.gvr), their(n))
	d.Plain.WhyNot = append(d.Plain.WhyNot, fixes...)
	d.Reason = "503 (endpoint resolution): " + rule
}

// sayPick words the random choice among the resolvable peers and its result.
func (r *Router) sayPick(vd *verdict, d *Decision, st *steps, fixes []string) {
	v, gvr, p := vd.v, vd.gvr, &vd.proxy
	best := candidateResult{p.best.outcome, p.best.unavailable}
	for i, res := range p.results {
		if res != best {
			d.Alternatives = append(d.Alternatives, fmt.Sprintf("%s with probability %d/%d", mvp.OutcomeKey(res.outcome, res.unavailable), p.counts[i], len(p.resolved)))
		}
	}
	sort.Strings(d.Alternatives)
	st.add("the apiserver picks one of %d resolvable peer(s) uniformly at random", len(p.resolved))
	header := strings.ToLower(mvp.LoopPreventionHeader)
	if len(p.resolved) > 1 {
		st.say(mvp.RuleRandomPeer, "%s picks one of %s at random and forwards the request with %s: true", v.srv.Name, candidateNames(p.resolved), header)
	} else {
		st.say(mvp.RuleLoopHeader, "%s forwards the request to %s with %s: true (so it is not proxied again) and passes the answer back", v.srv.Name, p.resolved[0].PeerName(), header)
	}
	if p.best.outcome == mvp.Unavailable {
		d.Reason = "503 (transport): the chosen peer does not answer"
		d.Plain.Answer = fmt.Sprintf("503 Service Unavailable — %s serves %s, but does not answer at its address", p.best.PeerName(), r.gvOrGVR(v, gvr))
		d.Plain.WhyNot = append(d.Plain.WhyNot, fixes...)
		return
	}
	d.Reason = "proxied to " + resolvedNames(p.resolved)
	var serving, answering404 []Candidate
	for _, c := range p.resolved {
		if c.outcome == mvp.Proxied && c.peer404 {
			answering404 = append(answering404, c)
		} else if c.outcome == mvp.Proxied {
			serving = append(serving, c)
		}
	}
	target := plainResolvedNames(p.resolved)
	if len(serving) > 0 {
		d.Plain.Answer = fmt.Sprintf("proxied to %s — %s does not serve %s itself; %s %s", target, v.srv.Name, r.gvOrGVR(v, gvr), candidateNames(serving), does(len(serving)))
		return
	}
	d.Plain.Answer = fmt.Sprintf("proxied to %s, which answers 404 — %s lists %s but does not serve it itself", target, candidateNames(answering404), gvr)
	d.Plain.WhyNot = append(d.Plain.WhyNot, fmt.Sprintf("upgrade %s, so that it learns from each peer's own discovery rather than from what the peer lists in its /apis", v.srv.Name))
}

// sayLocal words the local handler chain's answer. why is the reason the request was not
// proxied; plainWhy is why a GVR the server does not serve is a 404, in plain words.
func (r *Router) sayLocal(vd *verdict, d *Decision, st *steps, why, plainWhy string) {
	v, req, gvr, l := vd.v, vd.req, vd.gvr, &vd.local
	switch l.kind {
	case localAggregator:
		sayAggregator(v, l.aggregated, l.answer, d, st)
	case localDiscovery404:
		body := notFoundBody(v, parseGroupVersion(l.gv).group)
		d.NotFoundBody = &body
		st.add("the server serves nothing of %s: 404 (%s; discovery is never proxied)", l.gv, body.Describe())
		d.Reason = fmt.Sprintf("404: discovery of %s, which this server does not serve; discovery is never proxied", l.gv)
		d.Plain.Answer = fmt.Sprintf("404 Not Found — %s serves nothing of %s, and discovery is never proxied", v.srv.Name, l.gv)
		d.Plain.WhyNot = append(d.Plain.WhyNot, fmt.Sprintf("ask an apiserver that serves %s, or switch it on on %s with %s", l.gv, v.srv.Name, mvp.EnableFlag(l.gv)))
	case localNonResource:
		st.add("non-resource request: the local handler chain answers")
		d.Reason = why
		d.Plain.Answer = fmt.Sprintf("served locally — %s is not a resource request, so %s answers it itself and never proxies it", req.Path, v.srv.Name)
	case localNotServed404:
		body := notFoundBody(v, gvr.Group)
		d.NotFoundBody = &body
		st.add("the local handler chain does not serve %s: 404 (%s)", gvr, body.Describe())
		d.Reason = fmt.Sprintf("404: %s; the server does not serve %s itself", why, gvr)
		d.Plain.Answer = fmt.Sprintf("404 Not Found — %s; %s does not serve %s itself", plainWhy, v.srv.Name, r.gvOrGVR(v, gvr))
		if plainWhy == fmt.Sprintf("no apiserver serves %s", gvr) {
			d.Plain.Answer = "404 Not Found — " + plainWhy
		}
	case localNoSubresource404:
		sub := req.Info.Subresource
		st.add("the server serves %s but not its subresource %q: 404 from the local chain", gvr, sub)
		d.Reason = fmt.Sprintf("404: the server serves %s but not subresource %s", gvr, sub)
		d.Plain.Answer = fmt.Sprintf("404 Not Found — %s serves %s but not its subresource %s", v.srv.Name, gvr, sub)
		subs := "none"
		if l := v.subresourcesOf(gvr); len(l) > 0 {
			subs = strings.Join(l, ", ")
		}
		d.Plain.WhyNot = append(d.Plain.WhyNot, fmt.Sprintf("ask for a subresource %s serves for %s (%s), or run a version that has %s", v.srv.Name, gvr, subs, sub))
	default:
		d.Reason = why
		st.add("the local handler chain serves %s", gvr)
		d.Plain.Answer = fmt.Sprintf("served locally — %s serves %s itself", v.srv.Name, gvr)
		if why != "served by this server" && why != "this server is in the StorageVersion entry" {
			d.Plain.Answer += "; " + why
		}
	}
}
