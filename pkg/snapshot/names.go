package snapshot

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ResourceNames maps the other names kubectl accepts for a resource — its short names
// ("cj"), its singular name ("cronjob") and its kind ("CronJob"), lowercase — to the
// group/resources they name. Snapshot.ResourceNames builds it from what the servers record.
type ResourceNames map[string][]schema.GroupResource

// ResourceNames is every other name of the resources the reachable servers serve or list:
// short and singular names from their recorded discovery documents, kinds from their resource
// lists (a snapshot of profiles records no documents: kinds only).
func (s *Snapshot) ResourceNames() ResourceNames {
	names := ResourceNames{}
	add := func(name, group, resource string) {
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" || name == resource {
			return
		}
		gr := schema.GroupResource{Group: group, Resource: resource}
		if !slices.Contains(names[name], gr) {
			names[name] = append(names[name], gr)
		}
	}
	for i := range s.Servers {
		srv := &s.Servers[i]
		if !srv.Reachable {
			continue
		}
		for _, doc := range []*DiscoveryDocument{srv.CoreAPI, srv.APIs, srv.DefaultAPIs} {
			if doc == nil {
				continue
			}
			for _, g := range doc.Items {
				for _, v := range g.Versions {
					for _, r := range v.Resources {
						for _, short := range r.ShortNames {
							add(short, g.Name, r.Resource)
						}
						add(r.SingularResource, g.Name, r.Resource)
					}
				}
			}
		}
	}
	for g, r := range s.served() {
		add(r.Kind, g.Group, g.Resource)
	}
	return names
}

// name reports whether name ("jobs", "job", "Job", a short name) names g's resource.
func (n ResourceNames) name(name string, g GVR) bool {
	if name == g.Resource {
		return true
	}
	return slices.Contains(n[name], schema.GroupResource{Group: g.Group, Resource: g.Resource})
}
