package peerdiscovery

import (
	"encoding/json"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// FuzzDiff: any valid pair of documents neither panics nor, when the served document is the
// expected one, reports a difference.
func FuzzDiff(f *testing.F) {
	steady := load(f, "steady")
	seed := func(gs []Group) []byte { b, _ := json.Marshal(gs); return b }
	a, c := own(f, steady, "kas-a"), own(f, steady, "kas-c")
	f.Add(seed(pick(f, a, "batch", "storage.k8s.io")), seed(pick(f, c, "storage.k8s.io", "storagemigration.k8s.io")), []byte("[]"), false)
	f.Add(seed(pick(f, c, "resource.k8s.io")), seed(pick(f, a, "resource.k8s.io")), seed(pick(f, a, "resource.k8s.io")), true)
	f.Add([]byte(`[{"metadata":{"name":"g"},"versions":[{"version":"v1"}]}]`), []byte(`[{"metadata":{"name":"g"},"versions":[{"version":"v2","resources":[{"resource":"r","verbs":["get"]}]}]}]`), []byte(`[]`), true)
	f.Fuzz(func(t *testing.T, localJSON, peerJSON, servedJSON []byte, useExpected bool) {
		var local, peer, served []Group
		if json.Unmarshal(localJSON, &local) != nil || json.Unmarshal(peerJSON, &peer) != nil || json.Unmarshal(servedJSON, &served) != nil {
			return
		}
		for _, d := range [][]Group{local, peer, served} {
			if (&snapshot.DiscoveryDocument{Items: d}).Check() != nil {
				return // a snapshot holding it would not load
			}
		}
		snap := snapshot.New()
		snap.Servers = make([]snapshot.Server, 0, 2)
		s := &small{t: nil, snap: snap}
		l := s.server("kas-b", idB, "v1.36.3", local)
		s.server("kas-c", idC, "v1.37.1", peer)
		if useExpected {
			served = Merge(idB, local, map[string][]Group{idC: PeerGroups(peer)})
		}
		serve(l, served)
		rep := Diff(snap, "kas-b")
		if useExpected && (rep.Summary.Result != ResultClean || rep.Servers[0].ETagMatch == nil || !*rep.Servers[0].ETagMatch) {
			t.Errorf("served == expected, but %+v %v", rep.Summary, entries(rep.Servers[0]))
		}
		for _, e := range rep.Servers[0].Entries {
			if e.Class == "" || e.Change == "" || e.Detail == "" {
				t.Errorf("incomplete entry %+v", e)
			}
		}
	})
}
