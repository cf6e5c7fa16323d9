package route

import (
	"slices"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func TestGVRBits(t *testing.T) {
	b := newBits(130)
	for _, id := range []int32{0, 63, 64, 129} {
		b.add(id)
	}
	for id, want := range map[int32]bool{-1: false, 0: true, 1: false, 63: true, 64: true, 65: false, 129: true, 130: false, 1000: false} {
		if got := b.has(id); got != want {
			t.Errorf("has(%d) = %v, want %v", id, got, want)
		}
	}
	var got []int32
	b.each(func(id int32) { got = append(got, id) })
	if want := []int32{0, 63, 64, 129}; !slices.Equal(got, want) {
		t.Errorf("each: %v, want %v", got, want)
	}
	o := newBits(130)
	o.add(1)
	o.add(64)
	o.union(b)
	got = nil
	o.each(func(id int32) { got = append(got, id) })
	if want := []int32{0, 1, 63, 64, 129}; !slices.Equal(got, want) {
		t.Errorf("union: %v, want %v", got, want)
	}
	if (gvrBits)(nil).has(0) {
		t.Error("an empty set has 0")
	}
}

// TestIndexAgreesWithSnapshot checks every set of every server view against the snapshot
// it indexes, computed the plain way (maps keyed by GVR, as the router kept them before the
// GVRs were numbered), for every GVR any server names and for GVRs none does.
func TestIndexAgreesWithSnapshot(t *testing.T) {
	crashed := down(server("c", "v1.36.3", all...), true) // recorded nothing: inferred from orphans
	snaps := map[string]*snapshot.Snapshot{
		"skew": snap(server("a", "v1.37.1", all...), server("b", "v1.36.3", noBatch...), server("old", "v1.34.0", "v1/pods")),
		"crashed peer and sources": snap(crashed,
			withAggregated(server("b", "v1.36.3", "v1/pods", "apps/v1/deployments"), "apps/v1/deployments", "batch/v1/jobs", "example.com/v1/widgets"),
			with(server("d", "v1.36.3", "v1/pods"), func(s *snapshot.Server) {
				// crontabs' source is not recorded: only the cluster's list says it is a CRD.
				s.Resources = append(s.Resources, res("example.com/v1/widgets", snapshot.SourceCRD), res("metrics.k8s.io/v1beta1/pods", snapshot.SourceAggregated),
					res("stable.example.com/v1/crontabs", ""))
				s.DiscoveryFormat = snapshot.DiscoveryLegacy
			})),
	}
	cluster := snaps["crashed peer and sources"]
	cluster.Cluster.CustomResourceGroupVersions = []string{"crd.example.com/v1", "example.com/v1", "stable.example.com/v1"}
	cluster.Cluster.AggregatedGroupVersions = []string{"custom.metrics.k8s.io/v1beta2", "crd.example.com/v1"}
	unnamed := []snapshot.GVR{{Group: "crd.example.com", Version: "v1", Resource: "things"},
		{Group: "custom.metrics.k8s.io", Version: "v1beta2", Resource: "pods"}, {Version: "v1", Resource: "widgets"},
		{Group: "apps", Version: "v1", Resource: "widgets"}, {Group: "nowhere.io", Version: "v9", Resource: "x"}}

	for name, s := range snaps {
		t.Run(name, func(t *testing.T) {
			r := NewRouter(s)
			universe := slices.Clone(unnamed)
			named := map[snapshot.GVR]bool{}
			for _, srv := range s.Servers {
				for _, l := range [][]snapshot.Resource{srv.Resources, srv.PeerAggregated} {
					for _, res := range l {
						if !named[res.GVR()] {
							named[res.GVR()] = true
							universe = append(universe, res.GVR())
						}
					}
				}
			}
			orphans := map[snapshot.GVR]bool{}
			for _, srv := range s.Servers {
				if !srv.Reachable {
					continue
				}
			next:
				for _, res := range srv.PeerAggregated {
					for _, o := range s.Servers {
						if o.Reachable && o.Serves(res.GVR()) {
							continue next
						}
					}
					orphans[res.GVR()] = true
				}
			}
			excluded := mvp.ExcludedGroupVersions(s)
			for _, g := range universe {
				k := r.gvrs.key(g)
				if (k.id >= 0) != named[g] {
					t.Errorf("%s numbered %d; named by a server: %v", g, k.id, named[g])
				}
				why, ok := r.excluded.of(r.gvrs, k)
				if wantWhy, wantOK := excluded[g.GroupVersion()]; why != wantWhy || ok != wantOK {
					t.Errorf("%s excluded (%q, %v), want (%q, %v)", g, why, ok, wantWhy, wantOK)
				}
				for _, v := range r.views {
					srv := v.srv
					inferred := !srv.Reachable && len(srv.Resources) == 0 && srv.IdentityLease != nil && len(orphans) > 0
					local := srv.Serves(g) || (inferred && orphans[g])
					if got := v.local.has(k.id); got != local {
						t.Errorf("%s: local %s = %v, want %v", srv.Name, g, got, local)
					}
					if v.inferred != inferred {
						t.Errorf("%s: inferred %v, want %v", srv.Name, v.inferred, inferred)
					}
					servesGV := false
					for _, o := range universe {
						if o.Group == g.Group && o.Version == g.Version && (srv.Serves(o) || (inferred && orphans[o])) {
							servesGV = true
						}
					}
					if got := v.servesGroupVersionOf(k); got != servesGV {
						t.Errorf("%s: serves group/version of %s = %v, want %v", srv.Name, g, got, servesGV)
					}
					if got := v.servesGroupVersion(parseGroupVersion(g.GroupVersion())); got != servesGV {
						t.Errorf("%s: serves %s = %v, want %v", srv.Name, g.GroupVersion(), got, servesGV)
					}
					var subs []string
					for _, res := range srv.Resources {
						if res.GVR() == g {
							subs = res.Subresources
						}
					}
					if got := v.subresourcesOf(k); !slices.Equal(got, subs) {
						t.Errorf("%s: subresources of %s = %v, want %v", srv.Name, g, got, subs)
					}
					inAggregated := false
					for _, res := range srv.PeerAggregated {
						inAggregated = inAggregated || res.GVR() == g
					}
					evidence, hasLearned := mvp.LearnedView(srv)
					learned := slices.ContainsFunc(evidence, func(r snapshot.Resource) bool { return r.GVR() == g })
					if v.hasLearned != hasLearned || (hasLearned && v.learned.has(k.id) != learned) {
						t.Errorf("%s: learned %s = %v (evidence %v), want %v (evidence %v)", srv.Name, g, v.learned.has(k.id), v.hasLearned, learned, hasLearned)
					}
					advertised := local
					if len(srv.PeerAggregated) > 0 {
						advertised = inAggregated || (local && g.Group == "")
					}
					if got := v.advertised.has(k.id); got != advertised {
						t.Errorf("%s: advertises %s = %v, want %v", srv.Name, g, got, advertised)
					}
				}
			}
		})
	}
}

// TestAllGVRsSortedAndComplete: the table's rows are every GVR a view serves, by name.
func TestAllGVRsSortedAndComplete(t *testing.T) {
	r := NewRouter(snap(server("a", "v1.36.3", "v1/pods", "batch/v1/jobs"), server("b", "v1.36.3", "apps/v1/deployments", "v1/pods"),
		down(server("c", "v1.36.3"), true)))
	var names []string
	for _, g := range r.allGVRs() {
		if g.name != g.GVR.String() || r.gvrs.gvrs[g.id] != g.GVR {
			t.Errorf("row %q numbered %d names %s", g.name, g.id, r.gvrs.gvrs[g.id])
		}
		names = append(names, g.name)
	}
	if want := []string{"apps/v1/deployments", "batch/v1/jobs", "v1/pods"}; !slices.Equal(names, want) {
		t.Errorf("allGVRs: %v, want %v", names, want)
	}
}
