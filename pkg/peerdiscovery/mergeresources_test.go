package peerdiscovery

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"unsafe"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	"k8s.io/apiserver/pkg/endpoints/discovery/aggregated"
)

// The tests of this file hold mergeresources.go to the code it copies: kube-apiserver's
// mergeResources, reached through the exported aggregated.TestMergeResources. Only the tests
// link the apiserver package; the mvpctl binary does not.

// captured returns every real /apis document recorded under testdata, each once: the own and
// peer-aggregated documents of the steady and stale snapshots and the raw served bodies.
func captured(t testing.TB) (names []string, docs [][]Group) {
	t.Helper()
	seen := map[string]bool{}
	add := func(name string, gs []Group) {
		b, err := json.Marshal(gs)
		if err != nil {
			t.Fatal(err)
		}
		if seen[string(b)] {
			return
		}
		seen[string(b)] = true
		names, docs = append(names, name), append(docs, gs)
	}
	for _, snapName := range []string{"steady", "stale"} {
		for _, s := range load(t, snapName).Servers {
			if s.APIs != nil {
				add(snapName+"/"+s.Name+"/apis", s.APIs.Items)
			}
			if s.DefaultAPIs != nil {
				add(snapName+"/"+s.Name+"/defaultAPIs", s.DefaultAPIs.Items)
			}
		}
	}
	for _, name := range []string{"kas-a", "kas-b", "kas-c"} {
		var l apidiscoveryv2.APIGroupDiscoveryList
		if err := json.Unmarshal(gunzip(t, "steady-"+name+"-default.json"), &l); err != nil {
			t.Fatal(err)
		}
		add("steady-"+name+"-default.json", l.Items)
	}
	if len(docs) < 4 {
		t.Fatalf("only %d distinct captured documents", len(docs))
	}
	return names, docs
}

// checkMerge runs the apiserver's merge, mvpctl's copy and Merge on separate deep copies of
// the same input and fails unless all three give the same JSON byte for byte, the copy is
// reflect.DeepEqual to the original (nil and empty slices alike), the copy shares exactly the
// slices with its input that the original shares with its own, and Merge leaves its inputs
// unchanged.
func checkMerge(t testing.TB, label, serverID string, local []Group, peers map[string][]Group) {
	t.Helper()
	upLocal, upPeers := deepCopy(local), copyPeers(peers)
	upstream := aggregated.TestMergeResources(serverID, upLocal, upPeers)
	ownLocal, ownPeers := deepCopy(local), copyPeers(peers)
	ours := mergeResources(serverID, ownLocal, ownPeers)

	inLocal, inPeers := deepCopy(local), copyPeers(peers)
	public := Merge(serverID, inLocal, inPeers)
	if !reflect.DeepEqual(inLocal, local) || !reflect.DeepEqual(inPeers, peers) {
		t.Errorf("%s: Merge changed its inputs", label)
	}

	want, err := json.Marshal(upstream)
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range []struct {
		what string
		gs   []Group
	}{{"mergeResources", ours}, {"Merge", public}} {
		b, err := json.Marshal(got.gs)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, want) {
			t.Fatalf("%s: %s JSON differs from the apiserver's:\n got %s\nwant %s", label, got.what, truncate(b), truncate(want))
		}
	}
	if !reflect.DeepEqual(ours, upstream) {
		t.Fatalf("%s: same JSON, but not reflect.DeepEqual (nil versus empty slices?)", label)
	}
	if a, b := sharing(ours, ownLocal, ownPeers), sharing(upstream, upLocal, upPeers); !slices.Equal(a, b) {
		t.Fatalf("%s: the copy shares different slices with its input than the apiserver:\n got %v\nwant %v", label, a, b)
	}
}

func copyPeers(peers map[string][]Group) map[string][]Group {
	if peers == nil {
		return nil
	}
	out := make(map[string][]Group, len(peers))
	for id, gs := range peers {
		out[id] = deepCopy(gs)
	}
	return out
}

func truncate(b []byte) string {
	if len(b) > 400 {
		return string(b[:400]) + "…"
	}
	return string(b)
}

// sharing describes, for every slice and pointer of a merge result, which input it shares its
// backing array with ("local/g2/v0/resources"), "new" or "-" (empty: zero-sized allocations
// share one address, so they say nothing).
func sharing(result, local []Group, peers map[string][]Group) []string {
	origin := map[uintptr]string{}
	walkSlices(local, "local", func(p uintptr, where string) { origin[p] = where })
	for id, gs := range peers {
		walkSlices(gs, id, func(p uintptr, where string) { origin[p] = where })
	}
	var out []string
	walkSlices(result, "result", func(p uintptr, where string) {
		switch o, ok := origin[p]; {
		case p == 0:
			out = append(out, "-")
		case ok:
			out = append(out, o)
		default:
			out = append(out, "new")
		}
	})
	return out
}

// walkSlices calls visit with the address of every non-empty slice and non-nil pointer in gs,
// the list itself included, in document order.
func walkSlices(gs []Group, where string, visit func(uintptr, string)) {
	addr := func(p unsafe.Pointer, n int) uintptr {
		if n == 0 || p == nil {
			return 0
		}
		return uintptr(p)
	}
	visit(addr(unsafe.Pointer(unsafe.SliceData(gs)), cap(gs)), where)
	for i, g := range gs {
		gw := fmt.Sprintf("%s/g%d", where, i)
		visit(addr(unsafe.Pointer(unsafe.SliceData(g.Versions)), cap(g.Versions)), gw+"/versions")
		for j, v := range g.Versions {
			vw := fmt.Sprintf("%s/v%d", gw, j)
			visit(addr(unsafe.Pointer(unsafe.SliceData(v.Resources)), cap(v.Resources)), vw+"/resources")
			for k, r := range v.Resources {
				rw := fmt.Sprintf("%s/r%d", vw, k)
				visit(addr(unsafe.Pointer(r.ResponseKind), 1), rw+"/responseKind")
				visit(addr(unsafe.Pointer(unsafe.SliceData(r.Verbs)), cap(r.Verbs)), rw+"/verbs")
				visit(addr(unsafe.Pointer(unsafe.SliceData(r.ShortNames)), cap(r.ShortNames)), rw+"/shortNames")
				visit(addr(unsafe.Pointer(unsafe.SliceData(r.Categories)), cap(r.Categories)), rw+"/categories")
				visit(addr(unsafe.Pointer(unsafe.SliceData(r.Subresources)), cap(r.Subresources)), rw+"/subresources")
			}
		}
	}
}

// Server IDs for the tests, in ascending order; idB, idA, idC (helpers_test.go) sort among
// them as the real ones do.
var testIDs = []string{"apiserver-0", idB, "apiserver-b", idA, "apiserver-m", idC, "apiserver-z"}

// TestMergeEqualsApiserver: every captured document and its reversal (groups and each
// group's versions in reverse order, so that orders conflict and the order merge's
// topological sort and its lexicographic fallback run) as local, with up to two of those as
// peers, and every captured document with three captured peers (repeats allowed, as when
// servers serve the same document); the local server's ID first, between and last among the
// peers'. Peers are passed as a server stores them (PeerGroups).
func TestMergeEqualsApiserver(t *testing.T) {
	names, docs := captured(t)
	n := len(docs)
	for i := range n {
		names = append(names, names[i]+" reversed")
		docs = append(docs, reversed(docs[i]))
	}
	t.Logf("%d distinct captured documents, %d with the reversed ones", n, len(docs))

	type combo struct{ local, peers []int }
	var combos []combo
	for l := range docs {
		combos = append(combos, combo{[]int{l}, nil})
		for a := range docs {
			combos = append(combos, combo{[]int{l}, []int{a}})
			for b := range docs {
				combos = append(combos, combo{[]int{l}, []int{a, b}})
			}
		}
	}
	if !testing.Short() {
		for l := range n {
			for a := range n {
				for b := range n {
					for c := range n {
						combos = append(combos, combo{[]int{l}, []int{a, b, c}})
					}
				}
			}
		}
	}

	count := 0
	for _, c := range combos {
		// The local ID at each position among the peers': testIDs[0], [2], [4] or [6] around
		// the peers' [1], [3] and [5].
		for pos := 0; pos <= len(c.peers); pos++ {
			id := testIDs[2*pos]
			label := fmt.Sprintf("local %s as %s", names[c.local[0]], id)
			peers := map[string][]Group{}
			for k, d := range c.peers {
				peers[testIDs[2*k+1]] = PeerGroups(docs[d])
				label += fmt.Sprintf(", peer %s as %s", names[d], testIDs[2*k+1])
			}
			checkMerge(t, label, id, docs[c.local[0]], peers)
			count++
		}
	}
	t.Logf("%d merges compared", count)
}

// reversed returns gs with its groups and every group's versions in reverse order.
func reversed(gs []Group) []Group {
	out := deepCopy(gs)
	slices.Reverse(out)
	for i := range out {
		slices.Reverse(out[i].Versions)
	}
	return out
}

// TestMergeEqualsApiserverEdges: the inputs the captures never show.
func TestMergeEqualsApiserverEdges(t *testing.T) {
	snap := load(t, "steady")
	a, b, c := own(t, snap, "kas-a"), own(t, snap, "kas-b"), own(t, snap, "kas-c")
	small := pick(t, a, "batch", "storage.k8s.io")
	dup := append(pick(t, b, "storage.k8s.io"), pick(t, c, "storage.k8s.io", "batch", "storage.k8s.io")...)
	for _, tc := range []struct {
		name  string
		id    string
		local []Group
		peers map[string][]Group
	}{
		{"nil everything", idB, nil, nil},
		{"empty local, one peer", idB, []Group{}, map[string][]Group{idC: c}},
		{"nil local, nil peer list", idB, nil, map[string][]Group{idC: nil}},
		{"a peer under the server's own ID only", idB, b, map[string][]Group{idB: c}},
		{"a peer under the server's own ID and another", idB, b, map[string][]Group{idB: c, idA: a}},
		{"every server repeats a group the same way", idB, dup, map[string][]Group{idC: dup}},
		{"repeated groups, different peer", idC, dup, map[string][]Group{idA: small}},
		{"adjacent repeat: a cycle", idA, append(slices.Clone(small), small...), map[string][]Group{idC: small}},
		{"empty group name", idB, []Group{{}}, map[string][]Group{idA: {{}}}},
	} {
		checkMerge(t, tc.name, tc.id, tc.local, tc.peers)
	}
}

// TestMergeEqualsApiserverRandom: the fuzz target's mutations, driven by a fixed-seed random
// source, on documents cut from the captures, with up to four peers and random IDs (a peer
// sometimes under the local server's own ID).
func TestMergeEqualsApiserverRandom(t *testing.T) {
	_, docs := captured(t)
	rng := rand.New(rand.NewPCG(1, 37))
	iterations := 1000
	if testing.Short() {
		iterations = 100
	}
	for it := range iterations {
		pickDoc := func() []Group {
			src := docs[rng.IntN(len(docs))]
			var out []Group
			keep := rng.Float64()
			for _, g := range src {
				if rng.Float64() < keep {
					out = append(out, *g.DeepCopy())
				}
			}
			return out
		}
		all := [][]Group{pickDoc()}
		for range rng.IntN(5) {
			all = append(all, pickDoc())
		}
		recipe := make([]byte, rng.IntN(64))
		for i := range recipe {
			recipe[i] = byte(rng.UintN(256))
		}
		mutate(all, recipe)
		id := testIDs[rng.IntN(len(testIDs))]
		peers := map[string][]Group{}
		for _, d := range all[1:] {
			peers[testIDs[rng.IntN(len(testIDs))]] = d
		}
		checkMerge(t, fmt.Sprintf("iteration %d (recipe %x)", it, recipe), id, all[0], peers)
	}
}

// FuzzMergeEqualsApiserver: the apiserver's merge and mvpctl's copy agree on any local and two
// peer documents (JSON), after the edits recipe describes, with the IDs ids selects.
func FuzzMergeEqualsApiserver(f *testing.F) {
	_, docs := captured(f)
	enc := func(gs []Group) []byte { b, _ := json.Marshal(gs); return b }
	for i := range docs {
		j, k := (i+1)%len(docs), (i+2)%len(docs)
		f.Add(enc(docs[i]), enc(docs[j]), enc(docs[k]), uint8(i), []byte{})
		f.Add(enc(docs[i]), enc(reversed(docs[j])), []byte("null"), uint8(i+3), []byte{3, 1, 7, 12, 0, 2})
	}
	steady := load(f, "steady")
	a, c := own(f, steady, "kas-a"), own(f, steady, "kas-c")
	f.Add(enc(pick(f, c, "resource.k8s.io")), enc(pick(f, a, "resource.k8s.io")), enc(pick(f, a, "batch", "resource.k8s.io")), uint8(5), []byte{9, 0, 0, 12, 1, 1, 1})
	f.Add(enc(pick(f, a, "batch", "storage.k8s.io")), enc(pick(f, c, "storage.k8s.io", "storagemigration.k8s.io")), []byte("[]"), uint8(2), []byte{2, 0, 1, 5, 1, 0, 1})
	f.Add([]byte(`[{"metadata":{"name":"g"},"versions":[{"version":"v1","resources":[{"resource":"r","verbs":[]}]}]}]`),
		[]byte(`[{"metadata":{"name":"g"},"versions":[{"version":"v1","resources":[{"resource":"r"}]},{"version":"v1"}]}]`),
		[]byte(`[{"metadata":{"name":"g"}},{"metadata":{"name":"g"}}]`), uint8(0), []byte{})

	f.Fuzz(func(t *testing.T, localJSON, peer1JSON, peer2JSON []byte, ids uint8, recipe []byte) {
		all := make([][]Group, 3)
		for i, b := range [][]byte{localJSON, peer1JSON, peer2JSON} {
			if json.Unmarshal(b, &all[i]) != nil {
				return
			}
		}
		mutate(all, recipe)
		// ids: the local server's position and each peer's ID, from the test IDs; a peer
		// may share the local ID or the other peer's (then one of the two is lost, as in a map).
		id := testIDs[int(ids)%len(testIDs)]
		peers := map[string][]Group{
			testIDs[int(ids/7)%len(testIDs)]:    all[1],
			testIDs[int(ids/49+3)%len(testIDs)]: all[2],
		}
		checkMerge(t, "fuzz", id, all[0], peers)
	})
}

// Names the mutations draw from: few, so that documents collide on them.
var (
	poolGroups      = []string{"", "apps", "batch", "storage.k8s.io", "resource.k8s.io", "g"}
	poolVersions    = []string{"v1", "v1beta1", "v1beta2", "v2", "v1alpha3"}
	poolResources   = []string{"jobs", "csinodes", "deviceclasses", "r", "pods"}
	poolVerbs       = []string{"get", "list", "watch", "create", "delete", "approve"}
	poolSubresource = []string{"status", "scale", "log"}
)

// mutate edits docs in place as recipe says: each step is an operation byte and up to three
// argument bytes (a document, then indexes taken modulo the list lengths). Every kind of
// difference the merge resolves can be made: groups, versions and resources dropped,
// swapped, repeated, renamed onto each other or copied from another document; verbs and
// subresources added and removed; nil versus empty lists; freshness; other resource fields.
func mutate(docs [][]Group, recipe []byte) {
	arg := func(i int) int {
		if i < len(recipe) {
			return int(recipe[i])
		}
		return 0
	}
	for i := 0; i < len(recipe); i += 4 {
		op, d := recipe[i]%24, arg(i+1)%len(docs)
		x, y := arg(i+2), arg(i+3)
		gs := docs[d]
		if len(gs) == 0 {
			if op%3 == 0 {
				docs[d] = append(docs[d], Group{})
				docs[d][0].Name = poolGroups[x%len(poolGroups)]
			}
			continue
		}
		g := &gs[x%len(gs)]
		switch op {
		case 0: // drop a group
			docs[d] = slices.Delete(gs, x%len(gs), x%len(gs)+1)
		case 1: // swap two groups
			gs[x%len(gs)], gs[y%len(gs)] = gs[y%len(gs)], gs[x%len(gs)]
		case 2: // repeat a group
			docs[d] = slices.Insert(gs, y%(len(gs)+1), *g.DeepCopy())
		case 3: // rename a group
			g.Name = poolGroups[y%len(poolGroups)]
		case 4: // copy a group from another document
			if o := docs[y%len(docs)]; len(o) > 0 {
				docs[d] = append(gs, *o[x%len(o)].DeepCopy())
			}
		case 5: // nil or empty versions
			if y%2 == 0 {
				g.Versions = nil
			} else {
				g.Versions = []apidiscoveryv2.APIVersionDiscovery{}
			}
		}
		if op <= 5 || len(g.Versions) == 0 {
			if op > 5 && op%2 == 0 {
				g.Versions = append(g.Versions, apidiscoveryv2.APIVersionDiscovery{Version: poolVersions[y%len(poolVersions)]})
			}
			continue
		}
		v := &g.Versions[y%len(g.Versions)]
		switch op {
		case 6: // drop a version
			g.Versions = slices.Delete(g.Versions, y%len(g.Versions), y%len(g.Versions)+1)
		case 7: // swap two versions
			g.Versions[0], g.Versions[y%len(g.Versions)] = g.Versions[y%len(g.Versions)], g.Versions[0]
		case 8: // repeat a version
			g.Versions = append(g.Versions, *v.DeepCopy())
		case 9: // rename a version
			v.Version = poolVersions[x%len(poolVersions)]
		case 10: // freshness
			v.Freshness = []apidiscoveryv2.DiscoveryFreshness{"", apidiscoveryv2.DiscoveryFreshnessCurrent, apidiscoveryv2.DiscoveryFreshnessStale}[x%3]
		case 11: // nil or empty resources
			if x%2 == 0 {
				v.Resources = nil
			} else {
				v.Resources = []apidiscoveryv2.APIResourceDiscovery{}
			}
		}
		if op <= 11 || len(v.Resources) == 0 {
			if op > 11 && op%2 == 0 {
				v.Resources = append(v.Resources, apidiscoveryv2.APIResourceDiscovery{Resource: poolResources[x%len(poolResources)], Verbs: []string{"get"}})
			}
			continue
		}
		r := &v.Resources[x%len(v.Resources)]
		switch op {
		case 12: // drop a resource
			v.Resources = slices.Delete(v.Resources, x%len(v.Resources), x%len(v.Resources)+1)
		case 13: // swap two resources
			v.Resources[0], v.Resources[x%len(v.Resources)] = v.Resources[x%len(v.Resources)], v.Resources[0]
		case 14: // repeat a resource
			v.Resources = append(v.Resources, *r.DeepCopy())
		case 15: // rename a resource
			r.Resource = poolResources[y%len(poolResources)]
		case 16: // add a verb
			r.Verbs = append(r.Verbs, poolVerbs[y%len(poolVerbs)])
		case 17: // drop verbs, to nil or empty
			if y%2 == 0 {
				r.Verbs = nil
			} else {
				r.Verbs = []string{}
			}
		case 18: // add a subresource
			r.Subresources = append(r.Subresources, apidiscoveryv2.APISubresourceDiscovery{Subresource: poolSubresource[y%len(poolSubresource)], Verbs: []string{poolVerbs[x%len(poolVerbs)]}})
		case 19: // drop subresources, to nil or empty
			if y%2 == 0 {
				r.Subresources = nil
			} else {
				r.Subresources = []apidiscoveryv2.APISubresourceDiscovery{}
			}
		case 20: // scope and singular name
			r.Scope = []apidiscoveryv2.ResourceScope{apidiscoveryv2.ScopeCluster, apidiscoveryv2.ScopeNamespace, ""}[y%3]
			r.SingularResource = poolResources[y%len(poolResources)]
		case 21: // short names and categories
			r.ShortNames = append(r.ShortNames, poolResources[y%len(poolResources)])
			r.Categories = append(r.Categories, "all")
		case 22: // no response kind
			r.ResponseKind = nil
		case 23: // an empty resource name (the capability merge then takes b's fields)
			r.Resource = ""
		}
	}
}
