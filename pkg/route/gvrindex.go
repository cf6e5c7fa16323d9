package route

import (
	"math/bits"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// gvrIndex numbers every GVR the snapshot names, once, so that each server's sets are bit
// vectors indexed by that number: a table of 20,000 rows on five servers asks tens of times
// per row whether a server serves, advertises or has learned a GVR, and a map keyed by GVR
// would hash its three strings on every question.
type gvrIndex struct {
	ids  map[snapshot.GVR]int32
	gvrs []snapshot.GVR
	// gvOf is the number of each GVR's group/version in gvs.
	gvOf []int32
	gvs  map[groupVersion]int32
}

// groupVersion keys a group/version ("v1" is the core group's: group "").
type groupVersion struct{ group, version string }

func parseGroupVersion(gv string) groupVersion {
	i := strings.LastIndexByte(gv, '/')
	return groupVersion{group: gv[:max(i, 0)], version: gv[i+1:]}
}

func newGVRIndex(sizeHint int) *gvrIndex {
	return &gvrIndex{ids: make(map[snapshot.GVR]int32, sizeHint), gvs: map[groupVersion]int32{}}
}

// number returns g's number, giving it the next one if it has none.
func (x *gvrIndex) number(g snapshot.GVR) int32 {
	if id, ok := x.ids[g]; ok {
		return id
	}
	id := int32(len(x.gvrs))
	x.ids[g] = id
	x.gvrs = append(x.gvrs, g)
	gv := groupVersion{g.Group, g.Version}
	gvID, ok := x.gvs[gv]
	if !ok {
		gvID = int32(len(x.gvs))
		x.gvs[gv] = gvID
	}
	x.gvOf = append(x.gvOf, gvID)
	return id
}

// numbers numbers each resource of rs.
func (x *gvrIndex) numbers(rs []snapshot.Resource) []int32 {
	ids := make([]int32, len(rs))
	for i := range rs {
		ids[i] = x.number(rs[i].GVR())
	}
	return ids
}

// key is g with its number; -1 when no server names g (it is then in no set).
func (x *gvrIndex) key(g snapshot.GVR) gvrKey {
	id, ok := x.ids[g]
	if !ok {
		id = -1
	}
	return gvrKey{GVR: g, id: id}
}

// gvID is the number of group/version gv, or -1 when no server names it.
func (x *gvrIndex) gvID(gv groupVersion) int32 {
	id, ok := x.gvs[gv]
	if !ok {
		return -1
	}
	return id
}

// gvrKey is a GVR with its number in the router's gvrIndex (-1 when no server names it). It
// prints as the GVR does.
type gvrKey struct {
	snapshot.GVR
	id int32
}

// gvrBits is a set of GVR (or group/version) numbers.
type gvrBits []uint64

func newBits(n int) gvrBits { return make(gvrBits, (n+63)/64) }

func (b gvrBits) add(id int32) { b[id>>6] |= 1 << (id & 63) }

// has reports whether id is in the set; a negative id (a GVR no server names) never is.
func (b gvrBits) has(id int32) bool {
	return id >= 0 && int(id>>6) < len(b) && b[id>>6]&(1<<(id&63)) != 0
}

// union adds every member of o.
func (b gvrBits) union(o gvrBits) {
	for i := range o {
		b[i] |= o[i]
	}
}

// each calls f with every member, in increasing order.
func (b gvrBits) each(f func(id int32)) {
	for i, w := range b {
		for ; w != 0; w &= w - 1 {
			f(int32(i*64 + bits.TrailingZeros64(w)))
		}
	}
}
