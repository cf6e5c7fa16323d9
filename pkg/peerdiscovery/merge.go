package peerdiscovery

import (
	"bytes"
	"crypto/sha512"
	"encoding/json"
	"fmt"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Group is one group of an aggregated discovery document.
type Group = apidiscoveryv2.APIGroupDiscovery

// Merge is kube-apiserver's peer-aggregated merge (docs/behaviour.md §7; mergeResources in
// mergeresources.go mirrors the server's code, the same in 1.35–1.37): local is the server's
// own /apis document, peers its filtered peer cache (peer ID → groups). With no peers the
// result is local itself. The inputs are copied first: the server's code shares slices
// between its inputs and its result, and callers of Merge may change either.
func Merge(serverID string, local []Group, peers map[string][]Group) []Group {
	l := deepCopy(local)
	p := make(map[string][]Group, len(peers))
	for id, gs := range peers {
		p[id] = deepCopy(gs)
	}
	return mergeResources(serverID, l, p)
}

func deepCopy(gs []Group) []Group {
	if gs == nil {
		return nil
	}
	out := make([]Group, len(gs))
	for i := range gs {
		gs[i].DeepCopyInto(&out[i])
	}
	return out
}

// PeerGroups is what a 1.35+ server stores from one peer's /apis answer
// (k8s.io/apiserver pkg/util/peerproxy, fetchNewDiscoveryFor): the groups in the peer's order,
// the core group skipped (it is never in peer-aggregated /apis) and a repeated group name
// dropped (the first wins).
func PeerGroups(doc []Group) []Group {
	var out []Group
	seen := map[string]bool{}
	for _, g := range doc {
		if g.Name == "" || seen[g.Name] {
			continue
		}
		seen[g.Name] = true
		out = append(out, g)
	}
	return out
}

// FilterPeer applies the exclusion set to one peer's stored groups, as the 1.36+ exclusion
// manager does (k8s.io/apiserver pkg/util/peerproxy/gv_exclusion_manager.go,
// filterPeerCacheEntry and filterGroupDiscovery): when some resource of the peer belongs to an
// excluded group/version, every excluded version is dropped, each remaining group keeps only
// its metadata and surviving versions, and a group left without versions is dropped. When no
// resource is excluded, the groups are returned unchanged (a version without resources is not
// looked at). It also returns the group/versions it removed, in document order.
func FilterPeer(groups []Group, excluded map[schema.GroupVersion]bool) ([]Group, []string) {
	anyExcluded := false
	for _, g := range groups {
		for _, v := range g.Versions {
			if len(v.Resources) > 0 && excluded[schema.GroupVersion{Group: g.Name, Version: v.Version}] {
				anyExcluded = true
			}
		}
	}
	if !anyExcluded {
		return groups, nil
	}
	var out []Group
	var removed []string
	for _, g := range groups {
		fg := Group{ObjectMeta: g.ObjectMeta}
		for _, v := range g.Versions {
			gv := schema.GroupVersion{Group: g.Name, Version: v.Version}
			if excluded[gv] {
				removed = append(removed, gv.String())
				continue
			}
			fg.Versions = append(fg.Versions, v)
		}
		if len(fg.Versions) > 0 {
			out = append(out, fg)
		}
	}
	return out, removed
}

// ETag is the ETag kube-apiserver sends with a discovery document: the double-quoted
// uppercase hex SHA-512 of Go's encoding/json of APIGroupDiscoveryList{Items: items}, with
// empty type and list metadata (k8s.io/apiserver aggregated/etag.go, calculateETag, quoted by
// ServeHTTPWithETag).
func ETag(items []Group) string {
	b, err := json.Marshal(apidiscoveryv2.APIGroupDiscoveryList{Items: items})
	if err != nil {
		return "" // plain data: cannot happen
	}
	return fmt.Sprintf("%q", fmt.Sprintf("%X", sha512.Sum512(b)))
}

// Document returns items as the APIGroupDiscoveryList a server sends.
func Document(items []Group) *apidiscoveryv2.APIGroupDiscoveryList {
	if items == nil {
		items = []Group{}
	}
	return &apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: apidiscoveryv2.SchemeGroupVersion.String()},
		Items:    items,
	}
}

// MarshalServed encodes items the way kube-apiserver's JSON serializer writes the document:
// compact, HTML-escaped, newline-terminated. A server's response body and this are equal byte
// for byte when the documents are equal.
func MarshalServed(items []Group) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(Document(items)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
