package snapshot

import (
	"fmt"
	"slices"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
)

// This file is the one implementation of how a server's resource lists follow from its
// recorded discovery documents: pkg/discover builds the lists with it when it reads a cluster;
// convert.go derives with it the lists a mvpctl.io/v1alpha2 file leaves out, and checks with it
// that a list a file writes out agrees with its document.

// FlattenDiscovery turns the items of an aggregated discovery document into resources, leaving
// out group versions marked Stale (kube-apiserver's own local discovery cache leaves them out
// too: docs/behaviour.md §3.1); stale lists those, as "group/version". Sources are not set.
func FlattenDiscovery(items []apidiscoveryv2.APIGroupDiscovery) (rs []Resource, stale []string) {
	return flattenInto(nil, items)
}

// flattenInto is FlattenDiscovery appending to rs, which it grows once: the resources, their
// verbs and their subresources are counted first and each gets one allocation (a document lists
// hundreds of resources; tens of thousands with many CRDs).
func flattenInto(rs []Resource, items []apidiscoveryv2.APIGroupDiscovery) (_ []Resource, stale []string) {
	resources, verbs, subresources := 0, 0, 0
	for _, g := range items {
		for _, v := range g.Versions {
			if v.Freshness == apidiscoveryv2.DiscoveryFreshnessStale {
				continue
			}
			resources += len(v.Resources)
			for _, r := range v.Resources {
				verbs += len(r.Verbs)
				subresources += len(r.Subresources)
			}
		}
	}
	rs = slices.Grow(rs, resources)
	verbsArea := make([]string, 0, verbs)
	subresourcesArea := make([]string, 0, subresources)
	for _, g := range items {
		for _, v := range g.Versions {
			if v.Freshness == apidiscoveryv2.DiscoveryFreshnessStale {
				stale = append(stale, GroupVersionString(g.Name, v.Version))
				continue
			}
			for _, r := range v.Resources {
				res := Resource{
					Group:      g.Name,
					Version:    v.Version,
					Resource:   r.Resource,
					Namespaced: r.Scope == apidiscoveryv2.ScopeNamespace,
				}
				if len(r.Verbs) > 0 { // none stays nil, as append([]string(nil)) left it
					// A copy, not the document's slice; full slice expressions keep an append to
					// one resource's list from writing over the next one's.
					n := len(verbsArea)
					verbsArea = append(verbsArea, r.Verbs...)
					res.Verbs = verbsArea[n:len(verbsArea):len(verbsArea)]
				}
				if r.ResponseKind != nil {
					res.Kind = r.ResponseKind.Kind
				}
				if len(r.Subresources) > 0 {
					n := len(subresourcesArea)
					for _, s := range r.Subresources {
						subresourcesArea = append(subresourcesArea, s.Subresource)
					}
					res.Subresources = subresourcesArea[n:len(subresourcesArea):len(subresourcesArea)]
				}
				rs = append(rs, res)
			}
		}
	}
	return rs, stale
}

// GroupVersionString is "group/version", or "version" for the core group.
func GroupVersionString(group, version string) string {
	if group == "" {
		return version
	}
	return group + "/" + version
}

// Sanitize drops entries no real apiserver lists (no name or version, a "/" in the name or the
// version, a second copy of a GVR), so a garbled document cannot make the whole snapshot
// invalid. It returns what it dropped, for a warning.
func Sanitize(rs []Resource) (out []Resource, dropped []string) {
	seen := newFirstIndex(len(rs))
	if len(rs) > 0 {
		out = make([]Resource, 0, len(rs)) // none stays nil
	}
	for i := range rs {
		r := &rs[i]
		if r.Resource == "" || r.Version == "" || strings.Contains(r.Resource, "/") || strings.Contains(r.Version, "/") {
			dropped = append(dropped, fmt.Sprintf("%q in group %q version %q", r.Resource, r.Group, r.Version))
			continue
		}
		if _, dup := seen.addResource(rs, i); dup {
			dropped = append(dropped, "a second "+r.GVR().String())
			continue
		}
		out = append(out, *r)
	}
	return out, dropped
}

// Sources says where a group version comes from, from the cluster's CRD and APIService lists
// and whether they were read (Cluster.ListsRead).
type Sources struct {
	crd, aggregated map[string]bool
	// known: both lists were read, so a group version in neither is built in.
	known bool
}

// Sources indexes the cluster's lists. A list not read (ListsRead nil or false) leaves a
// non-core group version in neither list unknown: its source is then empty, not guessed.
func (c *Cluster) Sources() Sources {
	s := Sources{crd: toSet(c.CustomResourceGroupVersions), aggregated: toSet(c.AggregatedGroupVersions)}
	s.known = c.ListsRead != nil && c.ListsRead.CustomResourceDefinitions && c.ListsRead.APIServices
	return s
}

// Of returns r's source: SourceBuiltin, SourceCRD, SourceAggregated, or "" when not known.
func (s Sources) Of(r Resource) string {
	gv := r.GroupVersion()
	switch {
	case r.Group == "":
		return SourceBuiltin
	case s.aggregated[gv]:
		// An aggregated APIService takes the group version away from anything local.
		return SourceAggregated
	case s.crd[gv]:
		return SourceCRD
	case s.known:
		return SourceBuiltin
	}
	return ""
}

// Set sets the source of every resource of rs.
func (s Sources) Set(rs []Resource) {
	for i := range rs {
		rs[i].Source = s.Of(rs[i])
	}
}

func toSet(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}

// DeriveResources is Server.Resources as pkg/discover builds it from the server's /api (core)
// and /apis documents: flattened (stale group versions left out), sanitized, sources set.
func DeriveResources(core, apis *DiscoveryDocument, src Sources) []Resource {
	var rs []Resource
	for _, d := range []*DiscoveryDocument{core, apis} {
		if d != nil {
			rs, _ = flattenInto(rs, d.Items)
		}
	}
	rs, _ = Sanitize(rs)
	src.Set(rs)
	return rs
}

// DerivePeerAggregated is Server.PeerAggregated as pkg/discover builds it from the server's
// default /apis document.
func DerivePeerAggregated(defaultAPIs *DiscoveryDocument, src Sources) []Resource {
	return DeriveResources(nil, defaultAPIs, src)
}
