package peerdiscovery

import (
	"bytes"
	"reflect"
	"slices"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestRecordedETags: the ETag every real server sent is the hash mvpctl computes of the
// document it decoded, for the own (nopeer) and the peer-aggregated documents alike.
func TestRecordedETags(t *testing.T) {
	for _, name := range []string{"steady", "stale"} {
		snap := load(t, name)
		for _, s := range snap.Servers {
			if s.APIs == nil || s.DefaultAPIs == nil {
				t.Fatalf("%s %s: documents not recorded", name, s.Name)
			}
			for _, d := range []struct {
				what string
				etag string
				gs   []Group
			}{{"apis", s.APIs.ETag, s.APIs.Items}, {"defaultAPIs", s.DefaultAPIs.ETag, s.DefaultAPIs.Items}} {
				if d.etag == "" || ETag(d.gs) != d.etag {
					t.Errorf("%s %s %s: served ETag %s, computed %s", name, s.Name, d.what, d.etag, ETag(d.gs))
				}
			}
		}
	}
}

// TestMergeReproducesRealServers: the merge of the recorded own documents is, for each of the
// three real servers, exactly the document it served — byte for byte, and with its ETag.
func TestMergeReproducesRealServers(t *testing.T) {
	snap := load(t, "steady")
	ids := map[string]string{"kas-a": idA, "kas-b": idB, "kas-c": idC}
	for name, id := range ids {
		s := snap.Find(name)
		if s.ID != id {
			t.Fatalf("%s: id %s, want %s", name, s.ID, id)
		}
		peers := map[string][]Group{}
		for other, oid := range ids {
			if other != name {
				peers[oid] = PeerGroups(own(t, snap, other))
			}
		}
		got := Merge(id, own(t, snap, name), peers)
		if ETag(got) != s.DefaultAPIs.ETag {
			t.Errorf("%s: merged ETag %s, served %s", name, ETag(got), s.DefaultAPIs.ETag)
		}
		body, err := MarshalServed(got)
		if err != nil {
			t.Fatal(err)
		}
		if served := gunzip(t, "steady-"+name+"-default.json"); !bytes.Equal(body, served) {
			t.Errorf("%s: merged document (%d bytes) is not the served body (%d bytes)", name, len(body), len(served))
		}
	}
}

func TestMergeNoPeersIsLocal(t *testing.T) {
	local := own(t, load(t, "steady"), "kas-b")
	for _, peers := range []map[string][]Group{nil, {}, {idB: local}} {
		got := Merge(idB, local, peers)
		if !reflect.DeepEqual(got, local) || ETag(got) != ETag(local) {
			t.Errorf("peers %d: not the local document unchanged", len(peers))
		}
	}
}

// The rules of docs/behaviour.md §7 on small documents cut from the real servers' own documents.
func TestMergeRules(t *testing.T) {
	snap := load(t, "steady")
	a, b, c := own(t, snap, "kas-a"), own(t, snap, "kas-b"), own(t, snap, "kas-c")

	t.Run("a group only a peer serves is added where the lists' relative order puts it", func(t *testing.T) {
		local := pick(t, b, "autoscaling", "certificates.k8s.io")
		peer := pick(t, c, "autoscaling", "batch", "certificates.k8s.io")
		got := Merge(idB, local, map[string][]Group{idC: peer})
		if want := []string{"autoscaling", "batch", "certificates.k8s.io"}; !slices.Equal(groupNames(got), want) {
			t.Errorf("groups %v, want %v", groupNames(got), want)
		}
		// And the same from kas-c's side: the result does not depend on which server is local.
		if other := Merge(idC, peer, map[string][]Group{idB: local}); !reflect.DeepEqual(other, got) {
			t.Error("kas-c's merge differs from kas-b's")
		}
	})

	t.Run("versions: the lowest server ID gives the base; version lists merge preserving order", func(t *testing.T) {
		local := pick(t, c, "resource.k8s.io")                  // v1 only (1.37 defaults)
		peer := pick(t, a, "resource.k8s.io")                   // v1, v1beta2, v1beta1, v1alpha3
		got := Merge(idC, local, map[string][]Group{idA: peer}) // kas-a sorts first
		var vs []string
		for _, v := range got[0].Versions {
			vs = append(vs, v.Version)
		}
		if want := []string{"v1", "v1beta2", "v1beta1", "v1alpha3"}; !slices.Equal(vs, want) {
			t.Errorf("versions %v, want %v", vs, want)
		}
		// resource.k8s.io/v1: kas-c (1.37) adds devicetaintrules between the others.
		var rs []string
		for _, r := range find(got, "resource.k8s.io", "v1").Resources {
			rs = append(rs, r.Resource)
		}
		if want := []string{"deviceclasses", "devicetaintrules", "resourceclaims", "resourceclaimtemplates", "resourceslices"}; !slices.Equal(rs, want) {
			t.Errorf("resource.k8s.io/v1 resources %v, want %v", rs, want)
		}
	})

	t.Run("a resource both serve differently: verbs and subresources united, sorted", func(t *testing.T) {
		local := pick(t, b, "storage.k8s.io") // 1.36: csinodes without status
		peer := pick(t, c, "storage.k8s.io")  // 1.37: csinodes/status
		// A made-up verb only kas-b lists, to see the verb union.
		findResource(local, "storage.k8s.io", "v1", "csinodes").Verbs = append(findResource(local, "storage.k8s.io", "v1", "csinodes").Verbs, "approve")
		got := Merge(idB, local, map[string][]Group{idC: peer})
		r := findResource(got, "storage.k8s.io", "v1", "csinodes")
		if len(r.Subresources) != 1 || r.Subresources[0].Subresource != "status" {
			t.Errorf("csinodes subresources %v, want [status]", r.Subresources)
		}
		if !slices.IsSorted(r.Verbs) || !slices.Contains(r.Verbs, "approve") || !slices.Contains(r.Verbs, "watch") {
			t.Errorf("csinodes verbs %v: want the sorted union", r.Verbs)
		}
		// v1beta1 only kas-b serves stays, after v1.
		if find(got, "storage.k8s.io", "v1beta1") == nil {
			t.Error("storage.k8s.io/v1beta1 (kas-b only) lost")
		}
	})

	t.Run("the inputs are not changed", func(t *testing.T) {
		local, peer := pick(t, b, "storage.k8s.io"), pick(t, c, "storage.k8s.io")
		l0, p0 := pick(t, b, "storage.k8s.io"), pick(t, c, "storage.k8s.io")
		Merge(idB, local, map[string][]Group{idC: peer})
		if !reflect.DeepEqual(local, l0) || !reflect.DeepEqual(peer, p0) {
			t.Error("Merge changed its inputs")
		}
	})
}

func TestPeerGroups(t *testing.T) {
	doc := []Group{{}, {}, {}}
	doc[0].Name, doc[1].Name, doc[2].Name = "", "apps", "apps" // core (from /api), and a repeat
	doc[2].Versions = []apidiscoveryv2.APIVersionDiscovery{{Version: "v2"}}
	got := PeerGroups(doc)
	if len(got) != 1 || got[0].Name != "apps" || len(got[0].Versions) != 0 {
		t.Errorf("got %+v: want apps once, the first copy, no core", got)
	}
}

func TestFilterPeer(t *testing.T) {
	snap := load(t, "steady")
	c := own(t, snap, "kas-c")
	gv := func(g, v string) schema.GroupVersion { return schema.GroupVersion{Group: g, Version: v} }

	t.Run("nothing excluded: unchanged", func(t *testing.T) {
		in := pick(t, c, "batch", "apps")
		got, removed := FilterPeer(in, map[schema.GroupVersion]bool{gv("example.com", "v1"): true})
		if !reflect.DeepEqual(got, in) || removed != nil {
			t.Errorf("changed: %v removed %v", groupNames(got), removed)
		}
	})
	t.Run("an excluded version is dropped, a group left empty too", func(t *testing.T) {
		in := pick(t, own(t, snap, "kas-a"), "batch", "storage.k8s.io")
		got, removed := FilterPeer(in, map[schema.GroupVersion]bool{gv("batch", "v1"): true, gv("storage.k8s.io", "v1beta1"): true})
		if want := []string{"storage.k8s.io"}; !slices.Equal(groupNames(got), want) {
			t.Errorf("groups %v, want %v", groupNames(got), want)
		}
		if len(got[0].Versions) != 1 || got[0].Versions[0].Version != "v1" {
			t.Errorf("storage.k8s.io versions %v, want v1", got[0].Versions)
		}
		if want := []string{"batch/v1", "storage.k8s.io/v1beta1"}; !slices.Equal(removed, want) {
			t.Errorf("removed %v, want %v", removed, want)
		}
	})
	t.Run("a version without resources is not looked at unless some resource is excluded", func(t *testing.T) {
		in := pick(t, c, "apps")
		in[0].Versions = append(in[0].Versions, apidiscoveryv2.APIVersionDiscovery{Version: "v9", Freshness: apidiscoveryv2.DiscoveryFreshnessStale})
		got, _ := FilterPeer(in, map[schema.GroupVersion]bool{gv("apps", "v9"): true})
		if len(got[0].Versions) != 2 {
			t.Errorf("versions %v: the server only filters when a resource is excluded", got[0].Versions)
		}
	})
}
