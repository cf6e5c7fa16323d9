package profile

import (
	"sync"

	"github.com/mvpctl/mvpctl/pkg/lifecycle"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// BuiltinGroup reports whether group is an API group of some kube-apiserver release: one
// k8s.io/api states a lifecycle for (pkg/lifecycle), or one a recorded profile serves or can
// serve. A group that is neither can only be served by an add-on — a CRD or an aggregated API
// — which is what a snapshot whose CRD list could not be read needs to know of it.
func BuiltinGroup(group string) bool {
	builtinOnce.Do(func() { builtinSet = builtinGroups() })
	return builtinSet[group]
}

// builtinOnce and builtinSet cache builtinGroups until the profiles are replaced
// (ReplaceEmbedded).
var (
	builtinOnce sync.Once
	builtinSet  map[string]bool
)

func builtinGroups() map[string]bool {
	out := map[string]bool{"": true}
	if tab, err := lifecycle.Load(); err == nil {
		for _, r := range tab.Rows {
			out[r.Group] = true
		}
	}
	ps, _ := All()
	for _, p := range ps {
		for _, rs := range [][]snapshot.Resource{p.Resources, p.Full, p.FullServeRemoved} {
			for _, r := range rs {
				out[r.Group] = true
			}
		}
	}
	return out
}
