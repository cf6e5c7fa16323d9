package route

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Router evaluates requests against one snapshot. It is deterministic: where the apiserver
// picks a peer at random, the router reports every candidate.
type Router struct {
	snap     *snapshot.Snapshot
	views    []*serverView
	gvrs     *gvrIndex
	byName   map[string]*serverView
	excluded exclusions
	sv       storageVersionIndex
	// capable reports whether a binary version can serve a GVR at some --runtime-config, and
	// whether that is known; nil when unknown (WithCapabilities).
	capable func(version string, gvr snapshot.GVR) (can, known bool)
}

// WithCapabilities tells the router what each binary version can serve at some
// --runtime-config (e.g. from version profiles), so that a 404 can name the server and flag
// that would serve the GVR. It returns r.
func (r *Router) WithCapabilities(f func(version string, gvr snapshot.GVR) (can, known bool)) *Router {
	r.capable = f
	return r
}

// NewRouter indexes snap. snap must have been validated (snapshot.Decode does).
func NewRouter(snap *snapshot.Snapshot) *Router {
	views, gvrs, excluded := buildViews(snap)
	r := &Router{snap: snap, views: views, gvrs: gvrs, byName: map[string]*serverView{}, excluded: excluded}
	for _, v := range r.views {
		r.byName[v.srv.Name] = v
	}
	r.sv = buildStorageVersionIndex(snap, r.views)
	return r
}

// DecideAll returns the decision of every reachable server, in snapshot order, and the names
// of the servers that could not be evaluated because they were not reachable.
func (r *Router) DecideAll(req Request) (decisions []Decision, skipped []string) {
	for _, v := range r.views {
		if !v.srv.Reachable {
			skipped = append(skipped, v.srv.Name)
			continue
		}
		decisions = append(decisions, r.decide(v, req))
	}
	return decisions, skipped
}

// Decide returns the decision of the named server (name or ID).
func (r *Router) Decide(server string, req Request) (Decision, error) {
	v := r.byName[server]
	if v == nil {
		for _, cand := range r.views {
			if cand.srv.ID == server {
				v = cand
			}
		}
	}
	if v == nil {
		return Decision{}, fmt.Errorf("no server %q in the snapshot (servers: %s)", server, strings.Join(r.snap.ServerNames(), ", "))
	}
	if !v.srv.Reachable {
		return Decision{}, fmt.Errorf("server %q was not reachable when the snapshot was taken (%s): its decisions cannot be predicted", v.srv.Name, v.srv.Error)
	}
	return r.decide(v, req), nil
}

// decide runs the decision procedure of docs/behaviour.md §2 for server v.
func (r *Router) decide(v *serverView, req Request) Decision {
	return r.decideWith(v, req, r.keyOf(req), false)
}

// keyOf is the numbered GVR of a resource request (id -1 for any other request, and for a
// GVR no server names).
func (r *Router) keyOf(req Request) gvrKey {
	if !req.Info.IsResourceRequest {
		return gvrKey{id: -1}
	}
	return r.gvrs.key(req.Info.GVR())
}

// decideWith is decide for gvr, the request's keyOf; quiet leaves the steps out (routing
// tables).
func (r *Router) decideWith(v *serverView, req Request, gvr gvrKey, quiet bool) Decision {
	d := Decision{Server: v.srv.Name, ServerID: v.srv.ID, Version: v.srv.Version, Era: v.era, Peers: []string{}}
	st := steps{quiet: quiet}
	r.decideSteps(v, req, gvr, &d, &st)
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
	if TraceDecision != nil {
		TraceDecision(req.Method+" "+req.URL(), d)
	}
	return d
}

// TraceDecision, when set, is told of every routing decision made: `mvpctl -v 4` logs them.
var TraceDecision func(request string, d Decision)

func (r *Router) decideSteps(v *serverView, req Request, gvr gvrKey, d *Decision, st *steps) {
	info := req.Info

	if !st.quiet { // the arguments cost more than the rest of a table cell's decision
		st.add("server %s runs %s: %s", v.srv.Name, v.srv.Version, mvp.Describe(v.version))
	}
	if mvp.Newer(v.version) {
		// Rules of a minor mvpctl does not know are an assumption, and say so.
		d.Inferred = true
		st.say("", "%s runs %s, newer than the rules mvpctl knows: assumed to behave like 1.%d", v.srv.Name, v.srv.Version, mvp.NewestKnownMinor)
	}

	// Step 0: is the filter installed at all?
	if !v.era.HasProxy() {
		st.add("Kubernetes %s predates the Mixed Version Proxy (%s): no proxy filter", v.version.MinorString(), mvp.RuleFilter.Versions())
		st.say(mvp.RuleNoProxy, "%s runs Kubernetes %s, which has no Mixed Version Proxy: it answers only for what it serves itself", v.srv.Name, v.version.MinorString())
		r.notFoundFix(v, req, gvr, fmt.Sprintf("upgrade %s to a version with the Mixed Version Proxy (%s) and set it up", v.srv.Name, mvp.RuleFilter.Versions()), d)
		r.localOutcome(v, req, gvr, d, st, "no proxy filter "+mvp.RuleNoProxy.Versions(), fmt.Sprintf("%s has no Mixed Version Proxy", v.srv.Name))
		return
	}
	gate, gateAssumed := mvp.GateOn(v.srv)
	filter, filterAssumed := mvp.FilterInstalled(v.srv)
	switch {
	case !gate:
		st.add("feature gate UnknownVersionInteroperabilityProxy is off%s: no proxy filter", assumedNote(gateAssumed, "the version's default"))
		d.Inferred = d.Inferred || gateAssumed
		gateWhy := "the UnknownVersionInteroperabilityProxy gate is off"
		if gateAssumed {
			gateWhy += fmt.Sprintf(" (assumed: it is off by default in %s)", mvp.RuleGateDefaultOff.Versions())
		}
		st.say(mvp.RuleFilter, "the proxy filter is not installed: %s", gateWhy)
		r.notFoundFix(v, req, gvr, fmt.Sprintf("turn on --feature-gates=UnknownVersionInteroperabilityProxy=true and set --peer-ca-file on %s so its proxy filter is installed", v.srv.Name), d)
		r.localOutcome(v, req, gvr, d, st, "the proxy filter is absent (feature gate off)", fmt.Sprintf("%s's proxy filter is not installed (feature gate off)", v.srv.Name))
		return
	case !filter:
		st.add("feature gate on%s, but no --peer-ca-file: no proxy filter%s", assumedNote(gateAssumed, "the version's default"),
			assumedNote(filterAssumed, "not observed; kube-apiserver has no --peer-ca-file unless it is set"))
		d.Inferred = d.Inferred || gateAssumed || filterAssumed
		caWhy := "--peer-ca-file is not set"
		if filterAssumed {
			caWhy += " (assumed: it has no default)"
		}
		st.say(mvp.RuleFilter, "the proxy filter is not installed: the UnknownVersionInteroperabilityProxy gate is on, but %s", caWhy)
		r.notFoundFix(v, req, gvr, fmt.Sprintf("set --peer-ca-file on %s so its proxy filter is installed", v.srv.Name), d)
		r.localOutcome(v, req, gvr, d, st, "the proxy filter is absent (no --peer-ca-file)", fmt.Sprintf("%s's proxy filter is not installed (no --peer-ca-file)", v.srv.Name))
		return
	default:
		st.add("proxy filter installed (gate on, --peer-ca-file set)")
		st.say(mvp.RuleFilter, "the proxy filter is installed: the UnknownVersionInteroperabilityProxy gate is on and --peer-ca-file is set")
		d.Plain.FilterInstalled = true
	}

	// Step 2: non-resource requests.
	if !info.IsResourceRequest {
		st.add("%s %s is not a resource request (discovery, health, version, metrics...): never proxied", req.Method, req.Path)
		st.say(mvp.RuleNonResource, "%s is not a resource request (discovery, health, version, metrics): it is never proxied", req.Path)
		r.localOutcome(v, req, gvr, d, st, "non-resource request: served by the local handler chain", "")
		return
	}
	// Step 3: loop-prevention header.
	if req.HeaderProxied {
		st.add("header x-kubernetes-peer-proxied: true is present: served locally, never proxied again")
		st.say(mvp.RuleLoopHeader, "the request carries %s: true, so a peer already proxied it: %s answers it itself and never proxies it again", strings.ToLower(mvp.LoopPreventionHeader), v.srv.Name)
		if !v.local.has(gvr.id) {
			d.Plain.WhyNot = append(d.Plain.WhyNot, fmt.Sprintf("send the request without %s (only apiservers set it)", strings.ToLower(mvp.LoopPreventionHeader)))
		}
		r.localOutcome(v, req, gvr, d, st, "the loop-prevention header forces local handling", "the request was already proxied once")
		return
	}
	st.add("caches assumed synced (before sync, every request is handled locally)")
	if !st.quiet {
		st.add("routing key %s (core group keyed %s in this era; subresource, name, namespace and verb are ignored)", keyString(gvr.GVR, v.era), v.era.CoreKey())
	}

	if v.era.RoutesOnStorageVersions() {
		r.decideStorageVersion(v, req, gvr, d, st)
		return
	}
	r.decideDiscovery(v, req, gvr, d, st)
}

// decideDiscovery is steps 6–9 of the DISC eras (1.33+).
func (r *Router) decideDiscovery(v *serverView, req Request, gvr gvrKey, d *Decision, st *steps) {
	// The quiet checks below keep a routing table's most common cells (local; 404 for a
	// never-proxied group/version) from formatting what only explain prints.
	if v.local.has(gvr.id) {
		if !st.quiet {
			st.add("%s is in the server's local discovery cache", gvr)
			st.say(mvp.RuleDiscoveryRouting, "%s serves %s itself (its own discovery lists it), so its own handler answers", v.srv.Name, gvr)
		}
		r.localOutcome(v, req, gvr, d, st, "served by this server", "")
		return
	}
	if !st.quiet {
		st.add("%s is not in the server's local discovery cache", gvr)
		st.say(mvp.RuleDiscoveryRouting, "%s does not serve %s itself (its own discovery does not list it), so it looks for a peer that does", v.srv.Name, r.gvOrGVR(v, gvr))
	}
	if why, ok := r.excluded.of(r.gvrs, gvr); ok && v.era.ExcludesCRDsAndAPIServices() {
		if st.quiet {
			r.localOutcome(v, req, gvr, d, st, "", "")
			return
		}
		st.add("%s belongs to %s: excluded from peers' discovery (%s), never proxied", gvr.GroupVersion(), why, mvp.RuleExclusion.Versions())
		st.say(mvp.RuleExclusion, "%s belongs to %s: such group/versions are never proxied", gvr.GroupVersion(), why)
		d.Plain.WhyNot = append(d.Plain.WhyNot, fmt.Sprintf("%s must serve %s itself: %s's group/versions are never proxied", v.srv.Name, gvr, why))
		r.localOutcome(v, req, gvr, d, st, fmt.Sprintf("%s is %s's group/version, which is never proxied", gvr.GroupVersion(), why),
			fmt.Sprintf("%s is %s's group/version, which is never proxied", gvr.GroupVersion(), why))
		return
	}
	var cands, unlearned []*serverView
	for _, p := range r.views {
		if p == v {
			continue
		}
		switch why := mvp.Learns(v.srv, p.srv); why {
		case "":
			if r.peerAdvertises(v, p, gvr) {
				cands = append(cands, p)
			}
		case mvp.PeerNotTrusted, mvp.PeerAdvertiseUnreachable:
			if r.peerAdvertises(v, p, gvr) {
				st.add("peer %s serves %s, but %s has not learned it: %s", p.srv.Name, gvr, v.srv.Name, why)
				unlearned = append(unlearned, p)
			}
		default:
			notAPeerStep(p, why, st)
		}
	}
	cands, unlearned = r.learnedCandidates(v, gvr, cands, unlearned, d, st)
	if len(cands) == 0 && len(unlearned) > 0 {
		peers := make([]*snapshot.Server, len(unlearned))
		for i, p := range unlearned {
			peers[i] = p.srv
		}
		d.Causes = mvp.UnlearnedCauses(v.srv, peers)
		st.add("most likely cause: %s (to confirm: %s)", d.Causes[0].Text, d.Causes[0].Confirm)
		st.say(mvp.RuleDiscoveryRouting, "%s %s %s, but %s has not learned so from %s discovery; most likely %s (to confirm: %s)",
			viewNames(unlearned), serves(len(unlearned)), gvr, v.srv.Name, their(len(unlearned)), d.Causes[0].Text, d.Causes[0].Confirm)
		for _, c := range d.Causes {
			if c.Fix != "" {
				d.Plain.WhyNot = append(d.Plain.WhyNot, c.Fix)
			}
		}
		r.localOutcome(v, req, gvr, d, st, fmt.Sprintf("%s has not learned that %s %s %s: %s",
			v.srv.Name, viewNames(unlearned), serves(len(unlearned)), gvr.GroupVersion(), d.Causes[0].Text),
			fmt.Sprintf("%s %s %s, but %s has not learned so", viewNames(unlearned), serves(len(unlearned)), gvr.GroupVersion(), v.srv.Name))
		return
	}
	if len(cands) == 0 {
		st.add("no peer's discovery lists %s", gvr)
		st.say(mvp.RuleDiscoveryRouting, "no peer's discovery lists %s", gvr)
		r.enableFix(v, gvr, d)
		r.localOutcome(v, req, gvr, d, st, "no peer serves it", fmt.Sprintf("no apiserver serves %s", gvr))
		return
	}
	r.resolveWithin(v, req, gvr, cands, false, d, st)
}

// learnedCandidates checks the candidate peers against what server v has actually learned:
// its own peer-aggregated /apis (mvp.LearnedView). A GVR it does not list was learned from no
// peer, so every candidate moves to unlearned. Without that evidence the candidates stand, and
// the step says what was assumed.
func (r *Router) learnedCandidates(v *serverView, gvr gvrKey, cands, unlearned []*serverView, d *Decision, st *steps) ([]*serverView, []*serverView) {
	if len(cands) == 0 {
		return cands, unlearned
	}
	view, ok := v.learned, v.hasLearned
	switch {
	case ok && gvr.Group != "" && !view.has(gvr.id):
		st.add("%s's own peer-aggregated /apis does not list %s: it has not learned it from %s", v.srv.Name, gvr, viewNames(cands))
		st.say(mvp.RulePeerAggregatedDiscovery, "%s's /apis, which lists what it learned from its peers, does not list %s", v.srv.Name, gvr)
		return nil, append(unlearned, cands...)
	case ok && gvr.Group != "":
		st.add("%s's own peer-aggregated /apis lists %s: learned from a peer", v.srv.Name, gvr)
		st.say(mvp.RulePeerAggregatedDiscovery, "%s's /apis, which lists what it learned from its peers, lists %s: it knows a peer serves it", v.srv.Name, gvr)
	case v.era.LearnsPeersAggregatedView():
		st.add("assumed: %s has fetched %s's discovery (%s keeps no peer-aggregated /apis to check it by)", v.srv.Name, viewNames(cands), v.version.MinorString())
		st.say(mvp.RuleLearnsAggregatedView, "assumed: %s has fetched %s's discovery (Kubernetes %s keeps no record to check it by)", v.srv.Name, viewNames(cands), v.version.MinorString())
	case gvr.Group != "":
		st.add("assumed: %s has fetched %s's discovery (its peer-aggregated /apis is not recorded)", v.srv.Name, viewNames(cands))
		st.say(mvp.RuleDiscoveryRouting, "assumed: %s has fetched %s's discovery (the snapshot does not record what it learned)", v.srv.Name, viewNames(cands))
		d.Inferred = true
	}
	return cands, unlearned
}

// serves agrees with the number of servers named before it.
func serves(n int) string {
	if n == 1 {
		return "serves"
	}
	return "serve"
}

func viewNames(vs []*serverView) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.srv.Name
	}
	return strings.Join(names, ", ")
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
	case mvp.PeerGateOff:
		st.add("peer %s has the feature gate off: it writes no endpoint lease, so its discovery is never fetched", p.srv.Name)
		st.say(mvp.RuleFilter, "%s has the UnknownVersionInteroperabilityProxy gate off: it publishes no address, so no peer asks what it serves", p.srv.Name)
	}
}

// peerAdvertises reports whether v's peer cache lists gvr for peer p. A 1.33/1.34 server asks
// peers for discovery without profile=nopeer, so a 1.35+ peer answers with its peer-aggregated
// /apis (docs/behaviour.md §4.2).
func (r *Router) peerAdvertises(v, p *serverView, gvr gvrKey) bool {
	if v.era.LearnsPeersAggregatedView() {
		return p.advertised.has(gvr.id)
	}
	return p.local.has(gvr.id)
}

// decideStorageVersion is steps 6–9 of the SV and SV2 eras (1.28–1.32).
func (r *Router) decideStorageVersion(v *serverView, req Request, gvr gvrKey, d *Decision, st *steps) {
	entry, source := r.sv.lookup(gvr.GVR)
	if entry == nil {
		st.add("no StorageVersion lists %s (CRDs, aggregated APIs and resources without storage have none)%s", gvr, source)
		st.say(mvp.RuleStorageVersionRouting, "no StorageVersion object lists %s (CRDs, aggregated APIs and resources without storage have none), so %s looks for no peer", gvr, v.srv.Name)
		r.enableFix(v, gvr, d)
		r.localOutcome(v, req, gvr, d, st, "no StorageVersion entry: handled locally", fmt.Sprintf("no StorageVersion object lists %s", gvr))
		return
	}
	if source != "" {
		d.Inferred = true
	}
	if entry[v.srv.ID] {
		st.add("the StorageVersion for %s lists this server%s", gvr, source)
		st.say(mvp.RuleStorageVersionRouting, "the StorageVersion object of %s lists %s: it serves it itself", gvr, v.srv.Name)
		r.localOutcome(v, req, gvr, d, st, "this server is in the StorageVersion entry", "")
		return
	}
	var cands []*serverView
	var ids []string
	for id := range entry {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		p := r.viewByID(id)
		if p == nil {
			// A server the snapshot does not know: its address cannot be resolved from here.
			cands = append(cands, &serverView{srv: &snapshot.Server{Name: id, ID: id}})
			continue
		}
		cands = append(cands, p)
	}
	st.add("the StorageVersion for %s lists other servers: %s%s", gvr, strings.Join(ids, ", "), source)
	st.say(mvp.RuleStorageVersionRouting, "the StorageVersion object of %s lists %s, not %s: it looks for one of them", gvr, viewNames(cands), v.srv.Name)
	r.resolveWithin(v, req, gvr, cands, v.era.AnyUnresolvedPeerIs503(), d, st)
}

func (r *Router) viewByID(id string) *serverView {
	for _, p := range r.views {
		if p.srv.ID == id {
			return p
		}
	}
	return nil
}

// resolveWithin is resolveAndProxy when a candidate stopped answering so recently that its
// endpoint key may or may not have expired at the snapshot (mvp.EndpointResolvesKnown): the
// decision is made for both, the steady state (expired) is the answer, and the other one is an
// alternative that holds until a known moment — never one confident answer that may be wrong.
func (r *Router) resolveWithin(v *serverView, req Request, gvr gvrKey, cands []*serverView, anyFailureIs503 bool, d *Decision, st *steps) {
	var unknown []*serverView
	for _, p := range cands {
		if _, known := mvp.EndpointResolvesKnown(p.srv); !known {
			unknown = append(unknown, p)
		}
	}
	if len(unknown) == 0 {
		r.resolveAndProxy(v, req, gvr, cands, anyFailureIs503, nil, d, st)
		return
	}
	alive := map[*serverView]bool{}
	var goneBy, aliveUntil []string
	for _, p := range unknown {
		alive[p] = true
		w := p.srv.PeerProxy.EndpointWindow
		aliveUntil = append(aliveUntil, w.AliveUntil.UTC().Format("15:04:05"))
		goneBy = append(goneBy, w.GoneBy.UTC().Format("15:04:05"))
	}
	early, earlySteps := *d, steps{list: append([]Step(nil), st.list...), quiet: st.quiet}
	early.Peers = append([]string(nil), d.Peers...)
	r.resolveAndProxy(v, req, gvr, cands, anyFailureIs503, alive, &early, &earlySteps)
	st.add("%s stopped answering; its endpoint key lives until at least %s and is gone by %s (UTC): at the snapshot it may or may not have expired",
		viewNames(unknown), strings.Join(aliveUntil, ", "), strings.Join(goneBy, ", "))
	st.say("", "%s stopped answering; its published address stays resolvable until between %s and %s UTC, and the snapshot falls in that window",
		viewNames(unknown), strings.Join(aliveUntil, ", "), strings.Join(goneBy, ", "))
	r.resolveAndProxy(v, req, gvr, cands, anyFailureIs503, nil, d, st)
	d.Inferred = true
	if early.Outcome != d.Outcome || early.Unavailable != d.Unavailable {
		d.Alternatives = append(d.Alternatives, fmt.Sprintf("%s while the endpoint key of %s lives (until between %s and %s UTC)",
			outcomeText(early), viewNames(unknown), strings.Join(aliveUntil, ", "), strings.Join(goneBy, ", ")))
		st.add("until then: %s; from %s at the latest: %s", outcomeText(early), strings.Join(goneBy, ", "), outcomeText(*d))
	}
}

// outcomeText is the outcome as alternatives name it: local, proxied, not-found,
// unavailable/transport, unavailable/endpoint-resolution.
func outcomeText(d Decision) string {
	if d.Unavailable != "" {
		return string(d.Outcome) + "/" + d.Unavailable
	}
	return string(d.Outcome)
}

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
				c.Result = fmt.Sprintf("endpoint does not resolve (%s)", whyUnresolvable(p))
				st.say("", "%s serves %s, but its address cannot be resolved: %s", c.PeerName(), gvr, plainUnresolvable(p))
				fixes = append(fixes, unresolvableFix(p))
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
			d.Alternatives = append(d.Alternatives, fmt.Sprintf("%s with probability %d/%d", strings.TrimSuffix(string(r.outcome)+"/"+r.unavailable, "/"), counts[i], len(resolved)))
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

// localOutcome is the server's own handler chain: it serves the GVR (local), or answers 404.
// plainWhy is why a GVR the server does not serve is a 404, in plain words.
func (r *Router) localOutcome(v *serverView, req Request, gvr gvrKey, d *Decision, st *steps, why, plainWhy string) {
	info := req.Info
	if !info.IsResourceRequest {
		if gv, ok := discoveryGroupVersion(req.Path); ok && !v.servesGroupVersion(parseGroupVersion(gv)) {
			// /apis/<g>/<v> and /api/<v> have a handler only for group/versions the server
			// serves itself; peers are never asked (docs/behaviour.md §3.3).
			st.add("the server serves nothing of %s: its discovery path has no handler, 404 page not found (discovery is never proxied)", gv)
			d.Outcome, d.Status = mvp.NotFound, status(404)
			d.Reason = fmt.Sprintf("404: discovery of %s, which this server does not serve; discovery is never proxied", gv)
			d.Plain.Answer = fmt.Sprintf("404 Not Found — %s serves nothing of %s, and discovery is never proxied", v.srv.Name, gv)
			d.Plain.WhyNot = append(d.Plain.WhyNot, fmt.Sprintf("ask an apiserver that serves %s, or switch it on on %s with %s", gv, v.srv.Name, mvp.EnableFlag(gv)))
			return
		}
		st.add("non-resource request: the local handler chain answers")
		d.Outcome, d.Reason = mvp.Local, why
		d.Plain.Answer = fmt.Sprintf("served locally — %s is not a resource request, so %s answers it itself and never proxies it", req.Path, v.srv.Name)
		return
	}
	if !v.local.has(gvr.id) {
		d.Outcome, d.Status = mvp.NotFound, status(404)
		if st.quiet { // a table cell: the outcome alone (Reason and Plain are explain's)
			return
		}
		st.add("the local handler chain does not serve %s: 404 (%s)", gvr, notFoundShape(v, gvr))
		d.Reason = fmt.Sprintf("404: %s; the server does not serve %s itself", why, gvr)
		d.Plain.Answer = fmt.Sprintf("404 Not Found — %s; %s does not serve %s itself", plainWhy, v.srv.Name, r.gvOrGVR(v, gvr))
		if plainWhy == fmt.Sprintf("no apiserver serves %s", gvr) {
			d.Plain.Answer = "404 Not Found — " + plainWhy
		}
		return
	}
	if !v.servesSubresource(gvr, info.Subresource) {
		st.add("the server serves %s but not its subresource %q: 404 from the local chain", gvr, info.Subresource)
		d.Outcome, d.Status = mvp.NotFound, status(404)
		d.Reason = fmt.Sprintf("404: the server serves %s but not subresource %s", gvr, info.Subresource)
		d.Plain.Answer = fmt.Sprintf("404 Not Found — %s serves %s but not its subresource %s", v.srv.Name, gvr, info.Subresource)
		subs := "none"
		if l := v.subresourcesOf(gvr); len(l) > 0 {
			subs = strings.Join(l, ", ")
		}
		d.Plain.WhyNot = append(d.Plain.WhyNot, fmt.Sprintf("ask for a subresource %s serves for %s (%s), or run a version that has %s", v.srv.Name, gvr, subs, info.Subresource))
		return
	}
	d.Outcome, d.Reason = mvp.Local, why
	if st.quiet {
		return
	}
	st.add("the local handler chain serves %s", gvr)
	d.Plain.Answer = fmt.Sprintf("served locally — %s serves %s itself", v.srv.Name, gvr)
	if why != "served by this server" && why != "this server is in the StorageVersion entry" {
		d.Plain.Answer += "; " + why
	}
}

// discoveryGroupVersion returns the group/version of a per-group/version discovery path:
// "/apis/batch/v1" → "batch/v1", "/api/v1" → "v1".
func discoveryGroupVersion(path string) (string, bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) == 3 && parts[0] == "apis":
		return parts[1] + "/" + parts[2], true
	case len(parts) == 2 && parts[0] == "api":
		return parts[1], true
	}
	return "", false
}

// notFoundShape names which of the two local 404s the client gets (real-control-plane.md).
func notFoundShape(v *serverView, gvr gvrKey) string {
	if v.servesGroupVersionOf(gvr) {
		return "a Status NotFound: the group/version is served, the resource is not"
	}
	return `text/plain "404 page not found": the group/version has no handler`
}

func whyUnresolvable(p *serverView) string {
	if gate, _ := mvp.GateOn(p.srv); !gate {
		return "feature gate off: no endpoint lease"
	}
	if !p.srv.Reachable {
		return "the peer is down and its 15 s endpoint lease has expired"
	}
	return "no peer endpoint lease"
}

func candidateList(cs []Candidate) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s (%s): %s", c.Server, c.ID, c.Result)
	}
	return strings.Join(parts, "; ")
}

func resolvedNames(cs []Candidate) string {
	var names []string
	for _, c := range cs {
		if c.outcome == mvp.Proxied {
			names = append(names, c.Server)
		}
	}
	if len(names) == 1 {
		return names[0]
	}
	return "one of " + strings.Join(names, ", ") + " (random)"
}

// keyString prints the routing key as the era's code builds it.
func keyString(g snapshot.GVR, e mvp.Era) string {
	group := fmt.Sprintf("%q", g.Group)
	if g.Group == "" {
		group = e.CoreKey()
	}
	return fmt.Sprintf("{group: %s, version: %q, resource: %q}", group, g.Version, g.Resource)
}

func assumedNote(assumed bool, what string) string {
	if !assumed {
		return ""
	}
	return " [assumed: " + what + "]"
}

// plainAlternative words Decision.Alternatives for people.
var plainAlternative = strings.NewReplacer(
	"unavailable/endpoint-resolution", "503 (no peer address resolves)",
	"unavailable/transport", "503 (the chosen peer does not answer)",
	"not-found", "404 Not Found",
	"proxied", "proxied to a peer",
	"local", "served locally")

// gvOrGVR names what the server lacks: the whole group/version when it serves nothing of it
// ("batch/v1"), else the resource ("batch/v1/jobs").
func (r *Router) gvOrGVR(v *serverView, gvr gvrKey) string {
	if v.servesGroupVersionOf(gvr) {
		return gvr.String()
	}
	return gvr.GroupVersion()
}

// their agrees with the number of servers named before it.
func their(n int) string {
	if n == 1 {
		return "its"
	}
	return "their"
}

// does agrees with the number of servers named before it.
func does(n int) string {
	if n == 1 {
		return "does"
	}
	return "do"
}

func candidateNames(cs []Candidate) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.PeerName()
	}
	return strings.Join(names, ", ")
}

// plainResolvedNames is resolvedNames with server names for people.
func plainResolvedNames(cs []Candidate) string {
	var names []string
	for _, c := range cs {
		if c.outcome == mvp.Proxied {
			names = append(names, c.PeerName())
		}
	}
	if len(names) == 1 {
		return names[0]
	}
	return "one of " + strings.Join(names, ", ") + " (picked at random)"
}

func orUnknownAddress(a string) string {
	if a == "" {
		return "(address unknown)"
	}
	return a
}

// plainUnresolvable is whyUnresolvable for people.
func plainUnresolvable(p *serverView) string {
	if gate, _ := mvp.GateOn(p.srv); !gate {
		return "its UnknownVersionInteroperabilityProxy gate is off, so it publishes no address (peer endpoint lease)"
	}
	if !p.srv.Reachable {
		return "it is down and its published address (a peer endpoint lease with a 15 s TTL) has expired"
	}
	return "it has no peer endpoint lease"
}

// unresolvableFix is what makes p's address resolvable.
func unresolvableFix(p *serverView) string {
	if gate, _ := mvp.GateOn(p.srv); !gate {
		return fmt.Sprintf("turn on --feature-gates=UnknownVersionInteroperabilityProxy=true on %s so it publishes its address", p.srv.Name)
	}
	if !p.srv.Reachable {
		return fmt.Sprintf("bring %s back up: it publishes its address again once it runs", p.srv.Name)
	}
	return fmt.Sprintf("make %s publish its address: its peer endpoint lease must exist", p.srv.Name)
}

// notFoundFix adds fix to d's why-not when the request is a resource request another server
// serves and v does not; when no server serves it, the fix is to switch it on (enableFix).
func (r *Router) notFoundFix(v *serverView, req Request, gvr gvrKey, fix string, d *Decision) {
	if !req.Info.IsResourceRequest {
		return
	}
	if v.local.has(gvr.id) {
		return
	}
	for _, p := range r.views {
		if p != v && p.local.has(gvr.id) {
			d.Plain.WhyNot = append(d.Plain.WhyNot, fix)
			return
		}
	}
	r.enableFix(v, gvr, d)
}

// enableFix says which server would serve gvr with which --runtime-config, from what each
// server's version can serve (Router.WithCapabilities); without that knowledge it names the
// flag only.
func (r *Router) enableFix(v *serverView, gvr gvrKey, d *Decision) {
	flag := mvp.EnableFlag(gvr.GroupVersion())
	if r.capable == nil {
		d.Plain.WhyNot = append(d.Plain.WhyNot, fmt.Sprintf("switch %s on in an apiserver whose version has it: %s", gvr.GroupVersion(), flag))
		return
	}
	var fixes []string
	known := false
	for _, p := range r.views {
		if !p.srv.Reachable {
			continue
		}
		can, ok := r.capable(p.srv.Version, gvr.GVR)
		known = known || ok
		if can {
			fixes = append(fixes, fmt.Sprintf("%s would serve it with %s", p.srv.Name, flag))
		}
	}
	switch {
	case len(fixes) > 0:
		d.Plain.WhyNot = append(d.Plain.WhyNot, fixes...)
	case known:
		d.Plain.WhyNot = append(d.Plain.WhyNot, fmt.Sprintf("no apiserver here has %s at any --runtime-config: it needs a Kubernetes version that has it", gvr))
	default:
		d.Plain.WhyNot = append(d.Plain.WhyNot, fmt.Sprintf("switch %s on in an apiserver whose version has it: %s", gvr.GroupVersion(), flag))
	}
}
