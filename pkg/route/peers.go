package route

import (
	"github.com/mvpctl/mvpctl/internal/parallel"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// serverView is what the router precomputes for one server. Its sets are indexed by the
// router's GVR numbers (gvrIndex).
type serverView struct {
	srv     *snapshot.Server
	gvrs    *gvrIndex
	version snapshot.Version
	era     mvp.Era
	// local is the server's own discovery: what its local discovery cache holds.
	local gvrBits
	// resourceAt is, by GVR number, the index of the GVR's entry in srv.Resources (-1: none),
	// for requests naming a subresource.
	resourceAt []int32
	// advertised is what a 1.33/1.34 peer learns from this server: its default /apis, which
	// is peer-aggregated on 1.35+ (docs/behaviour.md §4.2, "Cross-version discovery"), plus /api.
	advertised gvrBits
	// inferred is true when local was inferred from other servers' peer-aggregated discovery
	// because the server could not be read.
	inferred bool
	// localGVs are the group/versions of local (by group/version number), for the per-cell
	// 404-shape and discovery checks.
	localGVs gvrBits
	// learned is what the server has learned from its peers (mvp.LearnedView), when its own
	// peer-aggregated /apis is the evidence (hasLearned).
	learned    gvrBits
	hasLearned bool
}

// buildViews indexes the snapshot: it numbers the GVRs, builds each server's view, and the
// exclusions by group/version number. For an unreachable server with a live identity lease and no
// recorded resources, its resources are inferred: GVRs that some reachable server's
// peer-aggregated /apis lists but no reachable server serves by itself must come from a server
// that is down. With several such servers the GVRs are attributed to each.
func buildViews(snap *snapshot.Snapshot) ([]*serverView, *gvrIndex, exclusions) {
	// Numbering is one pass over every list, the only one that hashes GVRs; what follows
	// works on the numbers.
	total := 0
	for i := range snap.Servers {
		total += len(snap.Servers[i].Resources)
	}
	x := newGVRIndex(total / max(len(snap.Servers), 1))
	resourceIDs := make([][]int32, len(snap.Servers))
	aggregatedIDs := make([][]int32, len(snap.Servers))
	for i := range snap.Servers {
		resourceIDs[i] = x.numbers(snap.Servers[i].Resources)
		aggregatedIDs[i] = x.numbers(snap.Servers[i].PeerAggregated)
	}
	n := int32(len(x.gvrs))
	views := make([]*serverView, len(snap.Servers))
	// Each server's own sets depend only on it: built side by side.
	parallel.Each(len(views), func(i int) {
		srv := &snap.Servers[i]
		v, _ := snapshot.ParseVersion(srv.Version) // validated on load; zero when unknown
		view := &serverView{srv: srv, gvrs: x, version: v, era: mvp.EraOf(v), local: newBits(int(n)), resourceAt: make([]int32, n)}
		for id := range view.resourceAt {
			view.resourceAt[id] = -1
		}
		for j, id := range resourceIDs[i] {
			view.local.add(id)
			view.resourceAt[id] = int32(j)
		}
		views[i] = view
	})
	orphans := orphansOf(views, aggregatedIDs, n)
	// Each view's indexes depend only on its server (and the orphans): built side by side.
	parallel.Each(len(views), func(i int) { views[i].index(aggregatedIDs[i], orphans) })
	return views, x, buildExclusions(snap, x, resourceIDs)
}

// orphansOf returns the GVRs that some reachable server's peer-aggregated /apis lists but no
// reachable server serves by itself; nil when there are none. Each server's list is checked
// side by side.
func orphansOf(views []*serverView, aggregatedIDs [][]int32, n int32) gvrBits {
	var reachable []*serverView
	for _, v := range views {
		if v.srv.Reachable {
			reachable = append(reachable, v)
		}
	}
	found := make([][]int32, len(views))
	parallel.Each(len(views), func(i int) {
		if !views[i].srv.Reachable {
			return
		}
	next:
		for _, id := range aggregatedIDs[i] {
			for _, o := range reachable {
				if o.local.has(id) {
					continue next
				}
			}
			found[i] = append(found[i], id)
		}
	})
	var orphans gvrBits
	for _, ids := range found {
		for _, id := range ids {
			if orphans == nil {
				orphans = newBits(int(n))
			}
			orphans.add(id)
		}
	}
	return orphans
}

// index fills the view's sets: what it serves (inferred from orphans for a crashed server that
// recorded nothing), its group/versions, what it learned of its peers, what it advertises.
// aggregatedIDs numbers srv.PeerAggregated.
func (view *serverView) index(aggregatedIDs []int32, orphans gvrBits) {
	srv, x := view.srv, view.gvrs
	if !srv.Reachable && len(srv.Resources) == 0 && srv.IdentityLease != nil && orphans != nil {
		view.local = orphans
		view.inferred = true
	}
	view.localGVs = newBits(len(x.gvs))
	view.local.each(func(id int32) { view.localGVs.add(x.gvOf[id]) })
	if _, ok := mvp.LearnedView(srv); ok {
		// The evidence is srv.PeerAggregated, which aggregatedIDs numbers
		// (TestIndexAgreesWithSnapshot checks against the list LearnedView returns).
		view.learned, view.hasLearned = newBits(len(x.gvrs)), true
		for _, id := range aggregatedIDs {
			view.learned.add(id)
		}
	}
	view.advertised = view.local
	if len(srv.PeerAggregated) > 0 {
		adv := newBits(len(x.gvrs))
		view.local.each(func(id int32) {
			if x.gvrs[id].Group == "" { // /api is never peer-aggregated
				adv.add(id)
			}
		})
		for _, id := range aggregatedIDs {
			adv.add(id)
		}
		view.advertised = adv
	}
}

// servesGroupVersion reports whether the server serves any resource of gv.
func (v *serverView) servesGroupVersion(gv groupVersion) bool {
	return v.gvrs != nil && v.localGVs.has(v.gvrs.gvID(gv))
}

// servesGroupVersionOf reports whether the server serves any resource of g's group/version.
func (v *serverView) servesGroupVersionOf(g gvrKey) bool {
	if g.id < 0 {
		return v.servesGroupVersion(groupVersion{g.Group, g.Version})
	}
	return v.localGVs.has(v.gvrs.gvOf[g.id])
}

// servesSubresource reports whether a locally served resource lists sub (true when the server
// reports no subresource data at all, since legacy discovery does not always list them).
func (v *serverView) servesSubresource(g gvrKey, sub string) bool {
	if sub == "" {
		return true
	}
	subs := v.subresourcesOf(g)
	if v.srv.DiscoveryFormat == snapshot.DiscoveryLegacy && len(subs) == 0 {
		return true
	}
	for _, s := range subs {
		if s == sub {
			return true
		}
	}
	return false
}

// subresourcesOf returns the subresources the server's own discovery lists for g.
func (v *serverView) subresourcesOf(g gvrKey) []string {
	if g.id < 0 || int(g.id) >= len(v.resourceAt) || v.resourceAt[g.id] < 0 {
		return nil
	}
	return v.srv.Resources[v.resourceAt[g.id]].Subresources
}
