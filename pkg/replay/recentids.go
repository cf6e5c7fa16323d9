package replay

import "hash/maphash"

// idEntry is an audit ID in the window: its first two events and how many there were.
type idEntry struct {
	id     string
	hash   uint64
	first  seenEvent
	second *seenEvent // set at the second event; rare, so not kept in every entry
	events int
}

// recentIDSet is a bounded set of the last audit IDs seen. done, when set, is called with
// each entry as it leaves the window (and, by flush, with those still in it), oldest first.
//
// Replay asks it once per event, so it is a table of its own rather than a map[string]int: an
// open-addressed index into the ring, at most half full, whose slots hold ring index + 1 (0 is
// empty) and the low half of the ID's hash, so that a probe reads the ring only on a likely
// match. Inserting and evicting an ID cost a probe or two, and allocate nothing; the hash is
// computed by the caller (idHash), in replay by the reader's workers.
type recentIDSet struct {
	slots []idSlot
	mask  uint64
	ring  []idEntry // grows to n entries, then wraps
	n     int
	next  int
	done  func(*idEntry)
}

type idSlot struct {
	hash  uint32 // the low bits of the ID's hash
	index int32  // in ring, + 1; 0 for an empty slot
}

// idSeed seeds idHash for the whole process: the workers that hash and the set that compares
// must agree.
var idSeed = maphash.MakeSeed()

// idHash is the hash see expects with an ID.
func idHash(id string) uint64 { return maphash.String(idSeed, id) }

func newRecentIDs(n int) *recentIDSet {
	size := 1
	for size < 2*n {
		size <<= 1
	}
	return &recentIDSet{slots: make([]idSlot, size), mask: uint64(size - 1), n: n}
}

// repeated reports whether id was among the last IDs, and remembers it. An empty ID (a request
// list, or an event without one) is never repeated.
func (r *recentIDSet) repeated(id string) bool {
	return r.see(id, idHash(id), seenEvent{})
}

// see is repeated, keeping ev for the join; h is idHash(id).
func (r *recentIDSet) see(id string, h uint64, ev seenEvent) bool {
	if id == "" {
		return false
	}
	i := h & r.mask
	for ; r.slots[i].index != 0; i = (i + 1) & r.mask {
		if r.slots[i].hash != uint32(h) {
			continue
		}
		if e := &r.ring[r.slots[i].index-1]; e.hash == h && e.id == id {
			if e.events++; e.events == 2 {
				second := ev // only this copy escapes, not every call's ev
				e.second = &second
			}
			return true
		}
	}
	// i is the empty slot the probe ended on: the new ID goes there.
	if len(r.ring) < r.n {
		r.ring = append(r.ring, idEntry{id: id, hash: h, first: ev, events: 1})
		r.slots[i] = idSlot{uint32(h), int32(len(r.ring))}
		return false
	}
	old := &r.ring[r.next]
	r.remove(r.next)
	if r.done != nil {
		r.done(old)
	}
	// Removing may have moved entries, but never into an empty slot's probe path that ends
	// before it: look for the slot again.
	i = h & r.mask
	for r.slots[i].index != 0 {
		i = (i + 1) & r.mask
	}
	r.ring[r.next] = idEntry{id: id, hash: h, first: ev, events: 1}
	r.slots[i] = idSlot{uint32(h), int32(r.next + 1)}
	r.next = (r.next + 1) % len(r.ring)
	return false
}

// remove takes ring entry k out of the table (backward-shift deletion: the entries after it in
// its probe run move up, so every lookup still finds them before an empty slot).
func (r *recentIDSet) remove(k int) {
	j := r.ring[k].hash & r.mask
	for r.slots[j].index != int32(k+1) {
		j = (j + 1) & r.mask
	}
	for {
		r.slots[j] = idSlot{}
		m := j
		for {
			m = (m + 1) & r.mask
			if r.slots[m].index == 0 {
				return
			}
			home := uint64(r.slots[m].hash) & r.mask // the mask is below 2^32
			// The entry at m may move to j unless its home lies cyclically in (j, m].
			if (j < m && (home <= j || home > m)) || (j > m && home <= j && home > m) {
				r.slots[j] = r.slots[m]
				j = m
				break
			}
		}
	}
}

// flush hands every entry still in the window to done, oldest first.
func (r *recentIDSet) flush() {
	for k := range len(r.ring) {
		e := &r.ring[(r.next+k)%len(r.ring)]
		if e.id != "" && r.done != nil {
			r.done(e)
		}
	}
}
