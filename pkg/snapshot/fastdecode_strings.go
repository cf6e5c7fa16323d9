//go:build !snapdecode

package snapshot

import (
	"bytes"
	"encoding/binary"
	"slices"
)

// This file is how the generated decoder keeps strings: interned, and short lists of them
// shared (fastdecode.go reads them).

// stringsMemo is a list of strings as written (from the white space before its '[' to its
// ']') and its values. The decoder is deterministic and reads nothing past the ']', so the same
// bytes again decode to the same values, ending at the same offset.
type stringsMemo struct {
	raw    []byte
	values []string
}

// repeatStrings decodes the list of strings at the current position when it is, byte for
// byte, the last one decoded: its values, shared (shareStrings), no string read again.
func (d *fastDecoder) repeatStrings(v *[]string) bool {
	m := &d.lastStrings
	if len(m.raw) == 0 || !bytes.HasPrefix(d.data[d.pos:], m.raw) {
		return false
	}
	*v = m.values
	d.pos += len(m.raw)
	return true
}

// rememberStrings records the list of strings just decoded from offset from.
func (d *fastDecoder) rememberStrings(from int, values []string) {
	d.lastStrings = stringsMemo{raw: d.data[from:d.pos], values: values}
}

// intern returns b as a string, shared with the last equal one that fell in the same slot.
func (d *fastDecoder) intern(b []byte) string {
	if len(b) > 32 || d.strs == nil {
		return string(b)
	}
	var h uint64
	if len(b) >= 8 {
		// The first and last eight bytes (overlapping when shorter than 16) and the length.
		h = binary.LittleEndian.Uint64(b) ^ binary.LittleEndian.Uint64(b[len(b)-8:])*0x9e3779b97f4a7c15 ^ uint64(len(b))
	} else {
		for _, c := range b {
			h = h<<8 | uint64(c)
		}
		h ^= uint64(len(b)) << 56
	}
	h *= 0xff51afd7ed558ccd
	slot := &d.strs[h>>(64-internBits)]
	if *slot == string(b) {
		return *slot
	}
	s := string(b)
	*slot = s
	return s
}

// shareStrings returns a list equal to s, the scratch slice's, for the decoded value to keep.
// Every list it returns has its capacity capped at its length, so an append to one reallocates
// rather than writing into whatever follows it; and a short list (verbs, subresources: one or
// more per resource, most of them one of a handful of lists) equal to one returned before is
// that one, its backing array shared (its strings are interned already, so only the array was
// left to share). Nothing in mvpctl writes into a decoded list in place (sorting, assigning an
// element); that is what keeps the sharing invisible (TestDecodedListsShareArrays). A new
// short list is carved from a shared block: one allocation per 4096 strings rather than one
// per list.
func (d *fastDecoder) shareStrings(s []string) []string {
	if len(s) == 0 {
		return []string{}
	}
	if len(s) > maxSharedList {
		return append(make([]string, 0, len(s)), s...)
	}
	if d.lists == nil {
		d.lists = new(listCache)
	}
	slot := &d.lists[listSlot(s)]
	if slices.Equal(*slot, s) {
		return *slot
	}
	if cap(d.strings)-len(d.strings) < len(s) {
		d.strings = make([]string, 0, 4096)
	}
	n := len(d.strings)
	d.strings = append(d.strings, s...)
	*slot = d.strings[n:len(d.strings):len(d.strings)]
	return *slot
}

// maxSharedList is the longest list shareStrings looks up and carves: longer ones (the
// cluster's lists of CRD group versions) are rarely repeated.
const maxSharedList = 64

const listCacheBits = 8

// listCache holds the last short list of strings kept per slot (shareStrings): equal lists
// fall in the same slot; two different lists in one slot just take turns.
type listCache [1 << listCacheBits][]string

// listSlot picks s's slot in a listCache from the lengths and the first and last bytes of its
// strings: cheap, and enough to tell verbs lists apart (a clash costs a copy, not a wrong list:
// shareStrings compares the lists).
func listSlot(s []string) int {
	h := uint64(len(s))
	for _, e := range s {
		h = h*31 + uint64(len(e))
		if len(e) > 0 {
			h = (h*31+uint64(e[0]))*31 + uint64(e[len(e)-1])
		}
	}
	h *= 0x9e3779b97f4a7c15
	return int(h >> (64 - listCacheBits))
}
