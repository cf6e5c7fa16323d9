package snapshot

import "hash/maphash"

// firstIndex finds the first repeated key of a list in one pass in input order, for the
// duplicate checks of validation (a server's resources, a document's groups and each group's
// versions). It holds indices into the caller's list, not keys: an open-addressing table of
// 4-byte slots, at most two thirds of them used, the keys compared through the list
// itself. A map[GVR]bool per list copied every key into the map (three strings, 48 bytes a
// slot, and more slots than entries): 20 MB of fresh memory for a 5 × 20k snapshot.
//
// A short list is searched linearly instead: no table at all.
type firstIndex struct {
	seed  maphash.Seed
	slots []int32 // an index into the list plus one; 0: empty
	mask  uint64
}

// linearMax is the longest list searched linearly (at most 28 comparisons for the last entry).
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

// add records the list's entry i, whose key hashes to hash(seed) and equals the key of an
// earlier entry j when same(j). Entries are added in order from 0, each once, until the first
// duplicate: add then returns the earlier entry with the equal key (the first such: only first
// occurrences are ever recorded), and the caller reports it and stops.
func (t *firstIndex) add(i int, hash func(maphash.Seed) uint64, same func(j int) bool) (earlier int, dup bool) {
	if t.slots == nil {
		for j := range i {
			if same(j) {
				return j, true
			}
		}
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

// hashGVR hashes a GVR for a firstIndex: the group and the resource in full, the version (v1,
// v1beta1: short, few) by its length and last byte. Equal GVRs hash equal; which unequal ones
// collide only costs a comparison.
func hashGVR(seed maphash.Seed, g, v, r string) uint64 {
	h := maphash.String(seed, r) ^ maphash.String(seed, g)*0x9e3779b97f4a7c15 ^ uint64(len(v))<<32
	if len(v) > 0 {
		h ^= uint64(v[len(v)-1])
	}
	return h
}
