package route

import (
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
)

// serveLocally is the server's own handler chain, which a request the filter does not proxy
// reaches: it serves the GVR (local), or answers 404 (mvp.NotFoundShape), or its
// kube-aggregator answers for an aggregated APIService (mvp.AnswerOf).
func (r *Router) serveLocally(vd *verdict) {
	v, req, gvr := vd.v, vd.req, vd.gvr
	l := &vd.local
	switch a := r.aggregatedFor(req); {
	case a != nil:
		// The local handler for an aggregated APIService's group/version is kube-aggregator's
		// proxy, whether or not the server's discovery lists it (docs/behaviour.md §16).
		l.kind, l.aggregated, l.answer = localAggregator, a, mvp.AnswerOf(*a)
		vd.rule = mvp.RuleAggregator
		vd.outcome, vd.unavailable = l.answer.Outcome, l.answer.Unavailable
		if l.answer.Outcome == mvp.Unavailable {
			vd.status = status(503)
		}
		vd.alsoPossible = append(vd.alsoPossible, l.answer.AlsoPossible...)
		vd.apiService = &APIServiceRef{Name: a.Name, Service: a.Service.String(), Available: a.Available}
		return
	case !req.Info.IsResourceRequest:
		if gv, ok := discoveryGroupVersion(req.Path); ok && !v.servesGroupVersion(parseGroupVersion(gv)) {
			// /apis/<g>/<v> and /api/<v> have a handler only for group/versions the server
			// serves itself; peers are never asked (docs/behaviour.md §3.3).
			l.kind, l.gv = localDiscovery404, gv
			vd.outcome, vd.status = mvp.NotFound, status(404)
			return
		}
		l.kind = localNonResource
	case mvp.LocalNotFound(v.local.has(gvr.id), true):
		l.kind = localNotServed404
		vd.outcome, vd.status = mvp.NotFound, status(404)
		return
	case mvp.LocalNotFound(true, v.servesSubresource(gvr, req.Info.Subresource)):
		l.kind = localNoSubresource404
		vd.outcome, vd.status = mvp.NotFound, status(404)
		return
	default:
		l.kind = localServed
	}
	vd.outcome = mvp.Local
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
