package route

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
)

// localOutcome is the server's own handler chain: it serves the GVR (local), or answers 404,
// or its kube-aggregator answers for an aggregated APIService.
// plainWhy is why a GVR the server does not serve is a 404, in plain words.
func (r *Router) localOutcome(v *serverView, req Request, gvr gvrKey, d *Decision, st *steps, why, plainWhy string) {
	if a := r.aggregatedFor(req); a != nil {
		// The local handler for an aggregated APIService's group/version is kube-aggregator's
		// proxy, whether or not the server's discovery lists it (docs/behaviour.md §16).
		r.aggregatorOutcome(v, a, d, st)
		return
	}
	info := req.Info
	if !info.IsResourceRequest {
		if gv, ok := discoveryGroupVersion(req.Path); ok && !v.servesGroupVersion(parseGroupVersion(gv)) {
			// /apis/<g>/<v> and /api/<v> have a handler only for group/versions the server
			// serves itself; peers are never asked (docs/behaviour.md §3.3).
			body := notFoundBody(v, parseGroupVersion(gv).group)
			st.add("the server serves nothing of %s: 404 (%s; discovery is never proxied)", gv, body.Describe())
			d.Outcome, d.Status, d.NotFoundBody = mvp.NotFound, status(404), &body
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
		body := notFoundBody(v, gvr.Group)
		d.NotFoundBody = &body
		st.add("the local handler chain does not serve %s: 404 (%s)", gvr, body.Describe())
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

// notFoundBody is the local chain's 404 for a path of group (docs/behaviour.md §2): when the
// server serves the group, the group's web service answers every path under it that nothing
// matches (an unknown version or resource) with its Status; else the path has no handler and
// the last-resort 404 of the server's version answers.
func notFoundBody(v *serverView, group string) mvp.NotFoundBody {
	for _, r := range v.srv.Resources {
		if r.Group == group {
			return mvp.UnknownResourceNotFound
		}
	}
	return mvp.LastResortNotFound(v.version)
}
