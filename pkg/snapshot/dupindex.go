package snapshot

import "hash/maphash"

// firstIndex finds repeated keys in a list in one pass, in input order, for the duplicate
// checks of validation (a server's resources, a document's groups and each group's versions)
// and of Sanitize. It holds indices into the caller's list, not keys: an open-addressing table
// of 4-byte slots, at most two thirds of them used, the keys compared through the list itself.
// A map[GVR]bool per list copied every key into the map (three strings, 48 bytes a slot, and
// more slots than entries): 20 MB of fresh memory for a 5 × 20k snapshot.
//
// A short list's entries are kept in a small array and searched linearly: no table at all.
type firstIndex struct {
	seed  maphash.Seed
	slots []int32 // an index into the list plus one; 0: empty
	mask  uint64
	few   [linearMax]int32 // without slots: the entries added, in order
	nFew  int
}

// linearMax is the longest list searched linearly (at most 7 comparisons an entry).
const linearMax = 8

// newFirstIndex returns an empty firstIndex for a list of n entries.
func newFirstIndex(n int) firstIndex {
	if n <= linearMax {
		return firstIndex{}
	}
	size := 1
	for size < n+n/2 {
		size <<= 1
	}
	return firstIndex{seed: maphash.MakeSeed(), slots: make([]int32, size), mask: uint64(size - 1)}
}

// add adds the list's entry i (each entry at most once; the caller may leave some out), whose
// key hashes to hash(seed) and equals the key of an entry j added before when same(j), unless
// such an entry was added: add then returns it (the only one: a repeat is never added) and
// does not add i.
func (t *firstIndex) add(i int, hash func(maphash.Seed) uint64, same func(j int) bool) (earlier int, dup bool) {
	if t.slots == nil {
		for _, j := range t.few[:t.nFew] {
			if same(int(j)) {
				return int(j), true
			}
		}
		t.few[t.nFew] = int32(i)
		t.nFew++
		return 0, false
	}
	for k := hash(t.seed) & t.mask; ; k = (k + 1) & t.mask {
		switch j := t.slots[k]; {
		case j == 0:
			t.slots[k] = int32(i + 1)
			return 0, false
		case same(int(j - 1)):
			return int(j - 1), true
		}
	}
}

// addResource is add for rs[i], keyed by its group/version/resource.
func (t *firstIndex) addResource(rs []Resource, i int) (earlier int, dup bool) {
	r := &rs[i]
	return t.add(i, func(seed maphash.Seed) uint64 { return hashGVR(seed, r) }, func(j int) bool { return sameGVR(&rs[j], r) })
}

// addString is add for entry i keyed by key; keyOf gives an earlier entry's key.
func (t *firstIndex) addString(i int, key string, keyOf func(j int) string) (earlier int, dup bool) {
	return t.add(i, func(seed maphash.Seed) uint64 { return maphash.String(seed, key) }, func(j int) bool { return keyOf(j) == key })
}

// hashGVR hashes r's group/version/resource for a firstIndex: the group and the resource in
// full, the version (v1, v1beta1: short, few) by its length and last byte. Equal GVRs hash
// equal; which unequal ones collide only costs a comparison (sameGVR).
func hashGVR(seed maphash.Seed, r *Resource) uint64 {
	h := maphash.String(seed, r.Resource) ^ maphash.String(seed, r.Group)*0x9e3779b97f4a7c15 ^ uint64(len(r.Version))<<32
	if len(r.Version) > 0 {
		h ^= uint64(r.Version[len(r.Version)-1])
	}
	return h
}

// sameGVR reports whether a and b name the same group/version/resource.
func sameGVR(a, b *Resource) bool {
	return a.Resource == b.Resource && a.Version == b.Version && a.Group == b.Group
}
