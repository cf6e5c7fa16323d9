package peerdiscovery

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// servedIndex knows which reachable server's own discovery lists what.
type servedIndex struct {
	gvr map[schema.GroupVersionResource][]string
	gv  map[schema.GroupVersion][]string
	// sub maps "group/version/resource/subresource" to servers.
	sub map[string][]string
	// unread names servers with a live identity lease that could not be read.
	unread []string
}

func newServedIndex(snap *snapshot.Snapshot) *servedIndex {
	idx := &servedIndex{gvr: map[schema.GroupVersionResource][]string{}, gv: map[schema.GroupVersion][]string{}, sub: map[string][]string{}}
	for i := range snap.Servers {
		s := &snap.Servers[i]
		if !s.Reachable {
			if s.IdentityLease != nil {
				idx.unread = append(idx.unread, s.Name)
			}
			continue
		}
		gvrs := map[schema.GroupVersionResource]bool{}
		gvs := map[schema.GroupVersion]bool{}
		subs := map[string]bool{}
		if s.APIs != nil {
			for _, g := range s.APIs.Items {
				for _, v := range g.Versions {
					gvs[schema.GroupVersion{Group: g.Name, Version: v.Version}] = true
					for _, r := range v.Resources {
						gvrs[schema.GroupVersionResource{Group: g.Name, Version: v.Version, Resource: r.Resource}] = true
						for _, sr := range r.Subresources {
							subs[subKey(g.Name, v.Version, r.Resource, sr.Subresource)] = true
						}
					}
				}
			}
		}
		for _, r := range s.Resources {
			gvs[schema.GroupVersion{Group: r.Group, Version: r.Version}] = true
			gvrs[schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource}] = true
			for _, sr := range r.Subresources {
				subs[subKey(r.Group, r.Version, r.Resource, sr)] = true
			}
		}
		for k := range subs {
			idx.sub[k] = append(idx.sub[k], s.Name)
		}
		for k := range gvrs {
			idx.gvr[k] = append(idx.gvr[k], s.Name)
		}
		for k := range gvs {
			idx.gv[k] = append(idx.gv[k], s.Name)
		}
	}
	return idx
}

func (idx *servedIndex) byGVR(g, v, r string) []string {
	return idx.gvr[schema.GroupVersionResource{Group: g, Version: v, Resource: r}]
}

func (idx *servedIndex) bySubresource(g, v, r, sub string) []string {
	return idx.sub[subKey(g, v, r, sub)]
}

func subKey(g, v, r, sub string) string { return g + "/" + v + "/" + r + "/" + sub }

func (idx *servedIndex) byGV(g, v string) []string {
	return idx.gv[schema.GroupVersion{Group: g, Version: v}]
}
