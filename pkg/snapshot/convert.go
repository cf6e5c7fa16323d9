package snapshot

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
)

// This file converts between a file's format and the in-memory snapshot: a mvpctl.io/v1alpha1
// file read as the current version, the lists a mvpctl.io/v1alpha2 file leaves out derived on
// read (convert) and left out on write (compact), and the check that a list a file writes out
// agrees with its document (checkAgreement).

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
