package route

import (
	"fmt"
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
	// aggregated are the aggregated APIServices by group/version (indexAggregated).
	aggregated map[groupVersion]*snapshot.APIService
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
	r := &Router{snap: snap, views: views, gvrs: gvrs, byName: map[string]*serverView{}, excluded: excluded, aggregated: indexAggregated(snap)}
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
	if !quiet {
		d.Hazards = r.hazards(v)
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
	} else if mvp.ProvisionalRules(v.version) {
		// Rules read from a release's prerelease modules, not seen on its apiserver.
		d.Inferred = true
		st.say("", "%s runs %s: %s", v.srv.Name, v.srv.Version, mvp.Describe(v.version))
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
	stated := statedNote(v.srv)
	switch {
	case !gate:
		st.add("feature gate UnknownVersionInteroperabilityProxy is off%s%s: no proxy filter", assumedNote(gateAssumed, "the version's default"), stated)
		d.Inferred = d.Inferred || gateAssumed
		gateWhy := "the UnknownVersionInteroperabilityProxy gate is off"
		if gateAssumed {
			gateWhy += fmt.Sprintf(" (assumed: it is off by default in %s)", mvp.RuleGateDefaultOff.Versions())
		}
		st.say(mvp.RuleFilter, "the proxy filter is not installed: %s%s", gateWhy, stated)
		r.notFoundFix(v, req, gvr, fmt.Sprintf("turn on --feature-gates=UnknownVersionInteroperabilityProxy=true and set --peer-ca-file on %s so its proxy filter is installed", v.srv.Name), d)
		r.localOutcome(v, req, gvr, d, st, "the proxy filter is absent (feature gate off)", fmt.Sprintf("%s's proxy filter is not installed (feature gate off)", v.srv.Name))
		return
	case !filter:
		st.add("feature gate on%s, but no --peer-ca-file: no proxy filter%s%s", assumedNote(gateAssumed, "the version's default"),
			assumedNote(filterAssumed, "not observed; kube-apiserver has no --peer-ca-file unless it is set"), stated)
		d.Inferred = d.Inferred || gateAssumed || filterAssumed
		caWhy := "--peer-ca-file is not set"
		if filterAssumed {
			caWhy += " (assumed: it has no default)"
		}
		st.say(mvp.RuleFilter, "the proxy filter is not installed: the UnknownVersionInteroperabilityProxy gate is on, but %s%s", caWhy, stated)
		r.notFoundFix(v, req, gvr, fmt.Sprintf("set --peer-ca-file on %s so its proxy filter is installed", v.srv.Name), d)
		r.localOutcome(v, req, gvr, d, st, "the proxy filter is absent (no --peer-ca-file)", fmt.Sprintf("%s's proxy filter is not installed (no --peer-ca-file)", v.srv.Name))
		return
	default:
		st.add("proxy filter installed (gate on, --peer-ca-file set)%s", stated)
		st.say(mvp.RuleFilter, "the proxy filter is installed: the UnknownVersionInteroperabilityProxy gate is on and --peer-ca-file is set%s", stated)
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
