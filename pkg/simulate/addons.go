package simulate

import (
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// clusterScoped reports whether an upgrade of one server keeps serving r: a CRD's or an
// aggregated API's (mvp.ClusterScoped), or — when the cluster's CRD and APIService lists were
// not read, so r's source is unknown — one of a group no kube-apiserver release has
// (profile.BuiltinGroup): the binary cannot serve it, only an add-on can. Taking it for the
// binary's would make the rehearsal drop it and call it a --runtime-config entry the new
// binary lacks: a false alarm.
func clusterScoped(r snapshot.Resource) bool {
	return mvp.ClusterScoped(r) || (r.Source == "" && !profile.BuiltinGroup(r.Group))
}
