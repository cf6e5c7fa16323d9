package simulate

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
// empty). Inserting and evicting an ID cost a hash and a probe or two, and allocate nothing.
type recentIDSet struct {
	seed  maphash.Seed
	slots []int32
	mask  uint64
	ring  []idEntry // grows to n entries, then wraps
	n     int
	next  int
	done  func(*idEntry)
}

func newRecentIDs(n int) *recentIDSet {
	size := 1
	for size < 2*n {
		size <<= 1
	}
	return &recentIDSet{seed: maphash.MakeSeed(), slots: make([]int32, size), mask: uint64(size - 1), n: n}
}

// repeated reports whether id was among the last IDs, and remembers it. An empty ID (a request
// list, or an event without one) is never repeated.
func (r *recentIDSet) repeated(id string) bool {
	return r.see(id, seenEvent{})
}

// see is repeated, keeping ev for the join.
func (r *recentIDSet) see(id string, ev seenEvent) bool {
	if id == "" {
		return false
	}
	h := maphash.String(r.seed, id)
	i := h & r.mask
	for ; r.slots[i] != 0; i = (i + 1) & r.mask {
		if e := &r.ring[r.slots[i]-1]; e.hash == h && e.id == id {
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
		r.slots[i] = int32(len(r.ring))
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
	for r.slots[i] != 0 {
		i = (i + 1) & r.mask
	}
	r.ring[r.next] = idEntry{id: id, hash: h, first: ev, events: 1}
	r.slots[i] = int32(r.next + 1)
	r.next = (r.next + 1) % len(r.ring)
	return false
}

// remove takes ring entry k out of the table (backward-shift deletion: the entries after it in
// its probe run move up, so every lookup still finds them before an empty slot).
func (r *recentIDSet) remove(k int) {
	j := r.ring[k].hash & r.mask
	for r.slots[j] != int32(k+1) {
		j = (j + 1) & r.mask
	}
	for {
		r.slots[j] = 0
		m := j
		for {
			m = (m + 1) & r.mask
			if r.slots[m] == 0 {
				return
			}
			home := r.ring[r.slots[m]-1].hash & r.mask
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
