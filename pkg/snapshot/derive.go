package snapshot

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
)

// This file is the one implementation of how a server's resource lists follow from its
// recorded discovery documents: pkg/discover builds the lists with it when it reads a cluster,
// Decode derives the lists a mvpctl.io/v1alpha2 file leaves out with it, and Validate checks
// with it that a list and its document agree.

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

// resourcesDerivable says whether a v1alpha2 file may leave srv's resources out: they follow
// from its recorded documents.
func resourcesDerivable(srv *Server, c *Cluster) bool {
	return srv.CoreAPI != nil && srv.APIs != nil && c.ListsRead != nil
}

// peerAggregatedDerivable says the same of srv's peer-aggregated list.
func peerAggregatedDerivable(srv *Server, c *Cluster) bool {
	return srv.DefaultAPIs != nil && c.ListsRead != nil
}

// compact returns the snapshot as a mvpctl.io/v1alpha2 file holds it: every list that its
// recorded documents give exactly left out. A list that differs from its documents' (an
// in-memory edit) is kept, so reading the file back gives s again.
func (s *Snapshot) compact() *Snapshot {
	out := *s
	out.APIVersion = APIVersion
	out.Servers = make([]Server, len(s.Servers))
	src := s.Cluster.Sources()
	for i := range s.Servers {
		srv := s.Servers[i]
		if resourcesDerivable(&srv, &s.Cluster) && reflect.DeepEqual(srv.Resources, DeriveResources(srv.CoreAPI, srv.APIs, src)) {
			srv.Resources = nil
		}
		if peerAggregatedDerivable(&srv, &s.Cluster) && reflect.DeepEqual(srv.PeerAggregated, DerivePeerAggregated(srv.DefaultAPIs, src)) {
			srv.PeerAggregated = nil
		}
		out.Servers[i] = srv
	}
	return &out
}

// convert brings a decoded file to the in-memory form: a mvpctl.io/v1alpha1 file has every
// list written out and becomes the current version as it is; a mvpctl.io/v1alpha2 file gets
// the lists it leaves out derived from its documents. Any other apiVersion is left for
// Validate to reject. It returns, per server, which lists it derived.
func (s *Snapshot) convert() ([]derivedLists, error) {
	derived := make([]derivedLists, len(s.Servers))
	switch s.APIVersion {
	case APIVersionV1Alpha1:
		if s.Cluster.ListsRead != nil {
			return nil, fmt.Errorf("cluster.listsRead: not a field of %s (it came in %s)", APIVersionV1Alpha1, APIVersion)
		}
		for i := range s.Servers {
			if s.Servers[i].CoreAPI != nil {
				return nil, fmt.Errorf("servers[%d] (%s).coreAPI: not a field of %s (it came in %s)", i, s.Servers[i].Name, APIVersionV1Alpha1, APIVersion)
			}
		}
		s.APIVersion = APIVersion
		s.Cluster.ListsRead = inferListsRead(s)
	case APIVersion:
		src := s.Cluster.Sources()
		for i := range s.Servers {
			srv := &s.Servers[i]
			if srv.Resources == nil && resourcesDerivable(srv, &s.Cluster) {
				srv.Resources, derived[i].resources = DeriveResources(srv.CoreAPI, srv.APIs, src), true
			}
			if srv.PeerAggregated == nil && peerAggregatedDerivable(srv, &s.Cluster) {
				srv.PeerAggregated, derived[i].peerAggregated = DerivePeerAggregated(srv.DefaultAPIs, src), true
			}
		}
	}
	return derived, nil
}

// derivedLists says which of a server's lists convert derived from its documents.
type derivedLists struct{ resources, peerAggregated bool }

// checkAgreements checks every list a file wrote out against its document (checkAgreement);
// lists derived on load (derived) come from those documents and are not derived again.
func (s *Snapshot) checkAgreements(derived []derivedLists) error {
	for i := range s.Servers {
		srv := s.Servers[i] // a copy: the derived lists are left out of the check, not the snapshot
		if derived[i].resources {
			srv.Resources = nil
		}
		if derived[i].peerAggregated {
			srv.PeerAggregated = nil
		}
		if err := checkAgreement(&srv, fmt.Sprintf("servers[%d] (%s)", i, srv.Name)); err != nil {
			return err
		}
	}
	return nil
}

// inferListsRead recovers, from a mvpctl.io/v1alpha1 file's sources, that both cluster lists
// were read, when the file shows it: pkg/discover tags a non-core group version in neither list
// builtin only when both were read, and leaves it untagged otherwise. It returns nil (not
// known) when no resource shows it, when the file contradicts itself, or when it records no
// discovery document (a profile or a hand-written file: nothing would be derived).
func inferListsRead(s *Snapshot) *ListsRead {
	src := s.Cluster.Sources()
	read, unread, documents := false, false, false
	for i := range s.Servers {
		documents = documents || s.Servers[i].APIs != nil || s.Servers[i].DefaultAPIs != nil
	}
	if !documents {
		return nil
	}
	for i := range s.Servers {
		for _, rs := range [][]Resource{s.Servers[i].Resources, s.Servers[i].PeerAggregated} {
			for _, r := range rs {
				if r.Group == "" || src.Of(r) != "" {
					continue // its source does not depend on the lists being read
				}
				switch r.Source {
				case SourceBuiltin:
					read = true
				case "":
					unread = true
				}
			}
		}
	}
	if read && !unread {
		return &ListsRead{CustomResourceDefinitions: true, APIServices: true}
	}
	return nil
}

// checkAgreement checks that each of srv's lists agrees with the document it was built from,
// when both are present (a file's guard: lists mvpctl builds in memory come from the same
// derivation): the same group/version/resources, each with the same scope, verbs and
// subresources. Sources are not compared (a mvpctl.io/v1alpha1 file does not record what they
// were derived from). Without a core document, only resources outside the core group are
// compared with /apis.
func checkAgreement(srv *Server, field string) error {
	if srv.APIs != nil && srv.Resources != nil {
		want := DeriveResources(srv.CoreAPI, srv.APIs, Sources{})
		got := srv.Resources
		doc := "coreAPI and apis documents"
		if srv.CoreAPI == nil {
			doc = "apis document"
			got = nil
			for _, r := range srv.Resources {
				if r.Group != "" {
					got = append(got, r)
				}
			}
		}
		if diff := firstDifference(got, want); diff != "" {
			return fmt.Errorf("%s.resources: disagrees with its %s: %s", field, doc, diff)
		}
	}
	if srv.DefaultAPIs != nil && srv.PeerAggregated != nil {
		if diff := firstDifference(srv.PeerAggregated, DerivePeerAggregated(srv.DefaultAPIs, Sources{})); diff != "" {
			return fmt.Errorf("%s.peerAggregated: disagrees with its defaultAPIs document: %s", field, diff)
		}
	}
	return nil
}

// firstDifference names the first GVR (in sorted order) where list and doc (the list derived
// from the document) differ, or returns "".
func firstDifference(list, doc []Resource) string {
	if sameInOrder(list, doc) {
		return ""
	}
	byGVR := func(rs []Resource) map[GVR]Resource {
		m := make(map[GVR]Resource, len(rs))
		for _, r := range rs {
			m[r.GVR()] = r
		}
		return m
	}
	l, d := byGVR(list), byGVR(doc)
	keys := make([]GVR, 0, len(l)+len(d))
	for k := range l {
		keys = append(keys, k)
	}
	for k := range d {
		if _, ok := l[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	for _, k := range keys {
		a, inList := l[k]
		b, inDoc := d[k]
		switch {
		case !inDoc:
			return fmt.Sprintf("%s is listed but not in the document", k)
		case !inList:
			return fmt.Sprintf("%s is in the document but not listed", k)
		case a.Namespaced != b.Namespaced:
			return fmt.Sprintf("%s: namespaced is %t, the document says %t", k, a.Namespaced, b.Namespaced)
		case !sameSet(a.Verbs, b.Verbs):
			return fmt.Sprintf("%s: verbs are %v, the document says %v", k, a.Verbs, b.Verbs)
		case !sameSet(a.Subresources, b.Subresources):
			return fmt.Sprintf("%s: subresources are %v, the document says %v", k, a.Subresources, b.Subresources)
		}
	}
	return ""
}

// sameInOrder reports whether list and doc hold the same resources in the same order, with
// the same scope and verbs and subresources as written: then no GVR differs. A file mvpctl
// wrote is so, and this decides it without the maps and the sorting that naming a difference
// needs.
func sameInOrder(list, doc []Resource) bool {
	if len(list) != len(doc) {
		return false
	}
	for i := range list {
		a, b := &list[i], &doc[i]
		if a.GVR() != b.GVR() || a.Namespaced != b.Namespaced || !slices.Equal(a.Verbs, b.Verbs) || !slices.Equal(a.Subresources, b.Subresources) {
			return false
		}
	}
	return true
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// CheckCore is Check for a server's /api (core group) document: its only group is the core
// group, and every version is named, once.
func (d *DiscoveryDocument) CheckCore() error {
	if d == nil {
		return nil
	}
	versions := map[string]bool{}
	for i, g := range d.Items {
		if g.Name != "" {
			return fmt.Errorf("items[%d].metadata.name: %q in /api, which holds only the core group", i, g.Name)
		}
		for j, v := range g.Versions {
			if v.Version == "" {
				return fmt.Errorf("items[%d].versions[%d].version: must be set", i, j)
			}
			if versions[v.Version] {
				return fmt.Errorf("items[%d].versions[%d]: duplicate version %q of the core group", i, j, v.Version)
			}
			versions[v.Version] = true
		}
	}
	return nil
}
