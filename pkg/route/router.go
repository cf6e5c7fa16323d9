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

// decide runs the decision procedure of docs/behaviour.md §2 for server v and words it.
func (r *Router) decide(v *serverView, req Request) Decision {
	return r.explained(v, req, r.keyOf(req))
}

// keyOf is the numbered GVR of a resource request (id -1 for any other request, and for a
// GVR no server names).
func (r *Router) keyOf(req Request) gvrKey {
	if !req.Info.IsResourceRequest {
		return gvrKey{id: -1}
	}
	return r.gvrs.key(req.Info.GVR())
}

// explained is the decision for gvr, the request's keyOf, with its steps and plain words.
func (r *Router) explained(v *serverView, req Request, gvr gvrKey) Decision {
	var vd verdict
	r.verdictOf(v, req, gvr, &vd)
	d := vd.decision()
	r.word(&vd, &d)
	if TraceDecision != nil {
		TraceDecision(req.Method+" "+req.URL(), d)
	}
	return d
}

// cellDecision is the decision a routing table's cell shows: the verdict without its words,
// which formatting was most of a table's time — unless decisions are traced (`-v 4`), which
// shows them in full.
func (r *Router) cellDecision(v *serverView, req Request, gvr gvrKey) Decision {
	if TraceDecision != nil {
		return r.explained(v, req, gvr)
	}
	var vd verdict
	r.verdictOf(v, req, gvr, &vd)
	return vd.decision()
}

// TraceDecision, when set, is told of every routing decision made: `mvpctl -v 4` logs them.
var TraceDecision func(request string, d Decision)

// verdictOf decides what server v does with req, as the apiserver's proxy filter does
// (k8s.io/apiserver peerproxy_handler.go, WrapHandler): no filter, a non-resource request,
// the loop-prevention header → the local handler chain; then the peers that serve the GVR,
// their endpoints resolved, one picked at random.
func (r *Router) verdictOf(v *serverView, req Request, gvr gvrKey, vd *verdict) {
	*vd = verdict{v: v, req: req, gvr: gvr, newer: mvp.Newer(v.version)}
	// Rules of a minor mvpctl does not know are an assumption; those read from a release's
	// prerelease modules, not seen on its apiserver, are provisional: inferred either way.
	vd.inferred = vd.newer || mvp.ProvisionalRules(v.version)
	installed := r.filterInstalled(vd)
	if rule, local := mvp.LocalRule(v.era.HasProxy(), installed, req.Info.IsResourceRequest, req.HeaderProxied); local {
		vd.rule = rule
		switch rule {
		case mvp.RuleNonResource:
			vd.stop = stopNonResource
		case mvp.RuleLoopHeader:
			vd.stop = stopLoopHeader
		}
		r.serveLocally(vd)
		return
	}
	if v.era.RoutesOnStorageVersions() {
		r.storageVersionPeers(vd)
		return
	}
	r.discoveryPeers(vd)
}

// filterInstalled is step 0: whether v's proxy filter is in its handler chain; when it is
// not, vd says why.
func (r *Router) filterInstalled(vd *verdict) bool {
	v := vd.v
	if !v.era.HasProxy() {
		vd.stop = stopNoProxy
		return false
	}
	gate, gateAssumed := mvp.GateOn(v.srv)
	filter, filterAssumed := mvp.FilterInstalled(v.srv)
	switch {
	case !gate:
		vd.stop, vd.gateAssumed = stopGateOff, gateAssumed
		vd.inferred = vd.inferred || gateAssumed
		return false
	case !filter:
		vd.stop, vd.gateAssumed, vd.filterAssumed = stopNoPeerCA, gateAssumed, filterAssumed
		vd.inferred = vd.inferred || gateAssumed || filterAssumed
		return false
	}
	return true
}

// decision is the verdict as a Decision, without words: what a routing table's cell needs.
func (vd *verdict) decision() Decision {
	v := vd.v
	d := Decision{Server: v.srv.Name, ServerID: v.srv.ID, Version: v.srv.Version, Era: v.era, Peers: []string{},
		Outcome: vd.outcome, Status: vd.status, Unavailable: vd.unavailable, Inferred: vd.inferred,
		AlsoPossible: answerKeys(vd.alsoPossible), AlsoAnswers: vd.alsoPossible, Causes: vd.causes, APIService: vd.apiService}
	if vd.stop != stopResolve {
		return d
	}
	p := &vd.proxy
	if p.peers != nil {
		d.Peers = p.peers
	}
	d.Candidates = append(p.resolved, p.failed...)
	return d
}

// answerKeys are answers as keys (mvp.Answer.Key), nil for none.
func answerKeys(as []mvp.Answer) []string {
	if len(as) == 0 {
		return nil
	}
	keys := make([]string, len(as))
	for i, a := range as {
		keys[i] = a.Key()
	}
	return keys
}
