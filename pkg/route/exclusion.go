package route

import (
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// exclusions is mvp.ExcludedGroupVersions indexed by group/version number, so that a table
// cell asks without building a "group/version" string.
type exclusions struct {
	// byGV is why each numbered group/version is excluded (mvp.NotExcluded when it is not).
	byGV []mvp.GroupVersionExclusion
	// unnumbered holds the cluster's excluded group/versions that no server's lists name.
	unnumbered map[string]mvp.GroupVersionExclusion
}

// buildExclusions is mvp.ExcludedGroupVersions over x's numbers: the cluster's lists first,
// then every server's resources in order, the last word winning. resourceIDs numbers each
// server's resources.
func buildExclusions(snap *snapshot.Snapshot, x *gvrIndex, resourceIDs [][]int32) exclusions {
	ex := exclusions{byGV: make([]mvp.GroupVersionExclusion, len(x.gvs)), unnumbered: map[string]mvp.GroupVersionExclusion{}}
	for gv, why := range mvp.ClusterExcludedGroupVersions(snap) {
		if id := x.gvID(parseGroupVersion(gv)); id >= 0 {
			ex.byGV[id] = why
		} else {
			ex.unnumbered[gv] = why
		}
	}
	for i := range snap.Servers {
		for j, r := range snap.Servers[i].Resources {
			if why := mvp.ExclusionOf(r); why != mvp.NotExcluded {
				ex.byGV[x.gvOf[resourceIDs[i][j]]] = why
			}
		}
	}
	return ex
}

// of says why g's group/version is excluded, and whether it is.
func (ex exclusions) of(x *gvrIndex, g gvrKey) (mvp.GroupVersionExclusion, bool) {
	var id int32
	if g.id >= 0 {
		id = x.gvOf[g.id]
	} else {
		id = x.gvID(groupVersion{g.Group, g.Version})
	}
	if id < 0 {
		why, ok := ex.unnumbered[g.GroupVersion()]
		return why, ok
	}
	return ex.byGV[id], ex.byGV[id] != mvp.NotExcluded
}
