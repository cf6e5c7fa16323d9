package route

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// APIServiceRef is the aggregated APIService a decision's request belongs to: the server's
// own kube-aggregator answers it (docs/behaviour.md §16).
type APIServiceRef struct {
	Name string `json:"name"`
	// Service is spec.service as namespace/name:port.
	Service string `json:"service"`
	// Available is the APIService's Available condition when the snapshot was taken; nil
	// when it had none yet.
	Available *snapshot.APIServiceCondition `json:"available,omitempty"`
}

// indexAggregated indexes the snapshot's aggregated APIServices by group/version.
func indexAggregated(snap *snapshot.Snapshot) map[groupVersion]*snapshot.APIService {
	m := map[groupVersion]*snapshot.APIService{}
	for i := range snap.Cluster.APIServices {
		if a := &snap.Cluster.APIServices[i]; a.Aggregated() {
			m[groupVersion{a.Group, a.Version}] = a
		}
	}
	return m
}

// aggregatedFor is the aggregated APIService whose group/version req is for — a resource
// request, or /apis/<group>/<version>, which goes to the same proxy handler — or nil.
func (r *Router) aggregatedFor(req Request) *snapshot.APIService {
	if len(r.aggregated) == 0 {
		return nil
	}
	if req.Info.IsResourceRequest {
		return r.aggregated[groupVersion{req.Info.APIGroup, req.Info.APIVersion}]
	}
	if gv, ok := discoveryGroupVersion(req.Path); ok {
		return r.aggregated[parseGroupVersion(gv)]
	}
	return nil
}

// sayAggregator words the answer of v's own kube-aggregator for a request to APIService a's
// group/version (mvp.AnswerOf, ans): what the local handler chain does with it.
func sayAggregator(v *serverView, a *snapshot.APIService, ans mvp.AggregatorAnswer, d *Decision, st *steps) {
	gv, cond := a.GroupVersion(), mvp.APIServiceConditionText(*a)
	st.add("%s belongs to APIService %s (service %s, %s): %s's own kube-aggregator answers it", gv, a.Name, a.Service, cond, v.srv.Name)
	if ans.Outcome != mvp.Unavailable {
		st.say(mvp.RuleAggregator, "%s is APIService %s's: %s's own aggregator passes the request to its backend (service %s), which the APIService's condition says answers (%s)", gv, a.Name, v.srv.Name, a.Service, cond)
		d.Reason = fmt.Sprintf("served by APIService %s's backend (%s) through this server's aggregator", a.Name, a.Service)
		d.Plain.Answer = fmt.Sprintf("served locally by the aggregator — %s's kube-aggregator passes the request to APIService %s's backend (%s) and returns its answer", v.srv.Name, a.Name, a.Service)
		note := mvp.BackendAnswerNote(*a)
		st.add("%s", note)
		st.say("", "%s", note)
		d.Alternatives = append(d.Alternatives, fmt.Sprintf("%s/%s if the backend has stopped answering since the aggregator's last availability check, then %s/%s from the check that marks the APIService Available=False (within about %s)",
			mvp.Unavailable, mvp.BackendUnreachable, mvp.Unavailable, mvp.APIServiceUnavailable, mvp.AvailabilityRecheck))
		return
	}
	st.add("APIService %s is not Available: 503 %q from the aggregator, nothing dialled", a.Name, mvp.AggregatorUnavailableMessage)
	reason := "no Available condition yet"
	if a.Available != nil {
		reason = "Available=" + a.Available.Status + " " + a.Available.Reason
	}
	st.say(mvp.RuleAggregator, "APIService %s is not available (%s): %s's own aggregator answers 503 %q without asking the backend", a.Name, strings.TrimSpace(reason), v.srv.Name, mvp.AggregatorUnavailableMessage)
	if cause := mvp.DiscoveryCheckCause(*a); cause != "" {
		st.add("why it is not: %s", cause)
		st.say("", "why: %s", cause)
	}
	d.Reason = fmt.Sprintf("503 (APIService unavailable): APIService %s is %s", a.Name, cond)
	d.Plain.Answer = fmt.Sprintf("503 Service Unavailable — APIService %s is not available (%s), so %s's own aggregator answers %q", a.Name, cond, v.srv.Name, mvp.AggregatorUnavailableMessage)
	d.Plain.WhyNot = append(d.Plain.WhyNot, mvp.APIServiceChecks(*a)...)
}

// unavailableAggregated reports whether g belongs to an aggregated APIService that is not
// available: its row is shown even where every server answers alike (with a 503).
func (r *Router) unavailableAggregated(g snapshot.GVR) bool {
	a := r.aggregated[groupVersion{g.Group, g.Version}]
	return a != nil && !a.IsAvailable()
}

// aggregatedRows are the rows of aggregated APIServices that the listed GVRs (allGVRs) lack:
// one for each APIService's /apis/<group>/<version>, which goes to the same proxy handler as
// its resources — the row that stays when discovery no longer lists any resource of it (a
// Stale entry lists none: seen on v1.36.3 and v1.37.1) — and one per resource its discovery
// lists that no server's own discovery counts as served. Available ones are left out unless
// all is set, like every other row that all servers answer alike.
func (r *Router) aggregatedRows(listed []namedGVR, all bool) []Row {
	have := map[snapshot.GVR]bool{}
	for _, g := range listed {
		have[g.GVR] = true
	}
	var rows []Row
	for i := range r.snap.Cluster.APIServices {
		a := &r.snap.Cluster.APIServices[i]
		if !a.Aggregated() || (a.IsAvailable() && !all) {
			continue
		}
		if req, err := ParseRequest(http.MethodGet, "/apis/"+a.Group+"/"+a.Version); err == nil {
			g := snapshot.GVR{Group: a.Group, Version: a.Version}
			rows = append(rows, r.cells(Row{GVR: g, Name: a.GroupVersion(), ServedBy: []string{}}, req, gvrKey{GVR: g, id: -1}))
		}
		for _, res := range a.Resources {
			g := snapshot.GVR{Group: a.Group, Version: a.Version, Resource: res}
			if have[g] {
				continue
			}
			if req, err := listRequest(g); err == nil {
				rows = append(rows, r.cells(Row{GVR: g, Name: g.String(), ServedBy: []string{}}, req, r.gvrs.key(g)))
			}
		}
	}
	return rows
}
