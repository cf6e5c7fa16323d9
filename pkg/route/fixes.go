package route

import (
	"fmt"

	"github.com/mvpctl/mvpctl/pkg/mvp"
)

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
