package route

import (
	"sort"
	"strings"

	"github.com/mvpctl/mvpctl/internal/parallel"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// gvrSet is a set of group/version/resources.
type gvrSet map[snapshot.GVR]bool

func setOf(rs []snapshot.Resource) gvrSet {
	s := make(gvrSet, len(rs))
	for _, r := range rs {
		s[r.GVR()] = true
	}
	return s
}

// serverView is what the router precomputes for one server.
type serverView struct {
	srv     *snapshot.Server
	version snapshot.Version
	era     mvp.Era
	// local is the server's own discovery: what its local discovery cache holds.
	local gvrSet
	// subresources of each local resource, for requests naming a subresource.
	subresources map[snapshot.GVR][]string
	// advertised is what a 1.33/1.34 peer learns from this server: its default /apis, which
	// is peer-aggregated on 1.35+ (docs/behaviour.md §4.2, "Cross-version discovery"), plus /api.
	advertised gvrSet
	// inferred is true when local was inferred from other servers' peer-aggregated discovery
	// because the server could not be read.
	inferred bool
	// localGVs are the group/versions of local, for the per-cell 404-shape and discovery
	// checks (a set: the table asks once per cell).
	localGVs map[groupVersion]bool
	// learned is what the server has learned from its peers (mvp.LearnedView), when its own
	// peer-aggregated /apis is the evidence (hasLearned).
	learned    map[snapshot.GVR]bool
	hasLearned bool
}

// buildViews indexes the snapshot. For an unreachable server with a live identity lease and no
// recorded resources, its resources are inferred: GVRs that some reachable server's
// peer-aggregated /apis lists but no reachable server serves by itself must come from a server
// that is down (issue 3 item 4). With several such servers the GVRs are attributed to each.
func buildViews(snap *snapshot.Snapshot) []*serverView {
	views := make([]*serverView, len(snap.Servers))
	// Each server's own sets depend only on it: built side by side.
	parallel.Each(len(views), func(i int) {
		srv := &snap.Servers[i]
		v, _ := snapshot.ParseVersion(srv.Version) // validated on load; zero when unknown
		view := &serverView{srv: srv, version: v, era: mvp.EraOf(v), local: setOf(srv.Resources),
			subresources: make(map[snapshot.GVR][]string, len(srv.Resources))}
		for _, r := range srv.Resources {
			view.subresources[r.GVR()] = r.Subresources
		}
		views[i] = view
	})
	orphans := orphansOf(views)
	// Each view's indexes depend only on its server (and the orphans): built side by side.
	parallel.Each(len(views), func(i int) { views[i].index(orphans) })
	return views
}

// orphansOf returns, sorted, the GVRs that some reachable server's peer-aggregated /apis lists
// but no reachable server serves by itself. Where several servers list one, the last server's
// entry is kept. Each server's list is checked side by side; the orphans, usually none or a
// few, are then merged in server order.
func orphansOf(views []*serverView) []snapshot.Resource {
	var reachable []*serverView
	for _, v := range views {
		if v.srv.Reachable {
			reachable = append(reachable, v)
		}
	}
	found := make([][]snapshot.Resource, len(views))
	parallel.Each(len(views), func(i int) {
		if !views[i].srv.Reachable {
			return
		}
	next:
		for _, r := range views[i].srv.PeerAggregated {
			g := r.GVR()
			for _, o := range reachable {
				if o.local[g] {
					continue next
				}
			}
			found[i] = append(found[i], r)
		}
	})
	byGVR := map[snapshot.GVR]snapshot.Resource{}
	for _, rs := range found {
		for _, r := range rs {
			byGVR[r.GVR()] = r
		}
	}
	var orphans []snapshot.Resource
	for _, r := range byGVR {
		orphans = append(orphans, r)
	}
	sort.Slice(orphans, func(i, j int) bool { return orphans[i].GVR().String() < orphans[j].GVR().String() })
	return orphans
}

// index fills the view's sets: what it serves (inferred from orphans for a crashed server that
// recorded nothing), its group/versions, what it learned of its peers, what it advertises.
func (view *serverView) index(orphans []snapshot.Resource) {
	srv := view.srv
	if !srv.Reachable && len(srv.Resources) == 0 && srv.IdentityLease != nil && len(orphans) > 0 {
		view.local = setOf(orphans)
		view.inferred = true
	}
	view.localGVs = map[groupVersion]bool{}
	for g := range view.local {
		view.localGVs[groupVersion{g.Group, g.Version}] = true // no "group/version" string per GVR
	}
	view.learned, view.hasLearned = mvp.LearnedView(srv)
	view.advertised = view.local
	if len(srv.PeerAggregated) > 0 {
		adv := make(gvrSet, len(srv.PeerAggregated))
		for g := range view.local {
			if g.Group == "" { // /api is never peer-aggregated
				adv[g] = true
			}
		}
		for _, r := range srv.PeerAggregated {
			adv[r.GVR()] = true
		}
		view.advertised = adv
	}
}

// servesGroupVersion reports whether the server serves any resource of gv ("batch/v1", "v1").
func (v *serverView) servesGroupVersion(gv string) bool {
	i := strings.LastIndexByte(gv, '/')
	return v.localGVs[groupVersion{group: gv[:max(i, 0)], version: gv[i+1:]}]
}

// groupVersion keys a server's group/versions ("v1" is the core group's: group "").
type groupVersion struct{ group, version string }

// servesSubresource reports whether a locally served resource lists sub (true when the server
// reports no subresource data at all, since legacy discovery does not always list them).
func (v *serverView) servesSubresource(g snapshot.GVR, sub string) bool {
	if sub == "" {
		return true
	}
	subs := v.subresources[g]
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
