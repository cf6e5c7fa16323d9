//go:build !snapdecode

package snapshot

//go:generate go run -tags snapdecode ../../internal/gen/snapdecode -o fastdecode_gen.go

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mvpctl/mvpctl/internal/jsonstr"
)

// fastDecoder is the generated, reflection-free JSON decoder's state (fastdecode_gen.go holds
// one decode method per type, written by internal/gen/snapdecode). Each method either decodes
// exactly what goccy/go-json with DisallowUnknownFields and the duplicate-key pass would, or
// returns false; decodeJSON then runs the reference decoder, which words the error.
type fastDecoder struct {
	data []byte
	pos  int
	// strs interns short strings (verbs, versions, sources, names repeated across servers):
	// a string is immutable, so sharing one is invisible, and saves an allocation per value.
	strs *internCache
	decodeScratch
	// strings is where short []string values are carved from (shareStrings).
	strings []string
	// lists holds short lists of strings already decoded, by content (shareStrings); nil
	// until the first one.
	lists *listCache
	// lastStrings is the last list of strings decoded (repeatStrings).
	lastStrings stringsMemo
	// unplain is set once a string decoded holds a byte outside printable ASCII (written as
	// it is or escaped): only then may the decoded text hold what validation's walk over every
	// string looks for (checkText).
	unplain bool
}

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

const internBits = 12

type internCache [1 << internBits]string

// fastDecode decodes data, one JSON object and white space around it, into s, or reports false
// (s is then to be reset). plainText reports that every string decoded is printable ASCII, so
// that validation need not walk the strings (checkText).
func fastDecode(data []byte, s *Snapshot) (ok, plainText bool) {
	d := fastDecoder{data: data, strs: new(internCache)}
	ok = d.decodeSnapshot(s) && d.atEnd()
	return ok, ok && !d.unplain
}

// atEnd reports whether only white space is left.
func (d *fastDecoder) atEnd() bool {
	d.ws()
	return d.pos == len(d.data)
}

// ws skips JSON white space; indentation eight spaces at a time.
func (d *fastDecoder) ws() {
	data, i := d.data, d.pos
	for i < len(data) {
		switch data[i] {
		case ' ':
			for i+8 <= len(data) && binary.LittleEndian.Uint64(data[i:]) == 0x2020202020202020 {
				i += 8
			}
			if i < len(data) && data[i] == ' ' {
				i++
			}
		case '\n', '\t', '\r':
			i++
		default:
			d.pos = i
			return
		}
	}
	d.pos = i
}

func (d *fastDecoder) byte(c byte) bool {
	d.ws()
	if d.pos < len(d.data) && d.data[d.pos] == c {
		d.pos++
		return true
	}
	return false
}

func (d *fastDecoder) objectStart() bool { return d.byte('{') }
func (d *fastDecoder) arrayStart() bool  { return d.byte('[') }

// objectEnd consumes the '}' of an empty object.
func (d *fastDecoder) objectEnd() bool { return d.byte('}') }

// arrayEnd consumes the ']' of an empty array.
func (d *fastDecoder) arrayEnd() bool { return d.byte(']') }

// more consumes the ',' before another member (more) or the closing byte (not more).
func (d *fastDecoder) more(closing byte) (more, ok bool) {
	d.ws()
	if d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ',':
			d.pos++
			return true, true
		case closing:
			d.pos++
			return false, true
		}
	}
	return false, false
}

// key reads an object key and its ':'. Only plain printable ASCII keys are accepted: a key
// with an escape could match a field only once unescaped, and the duplicate-key pass compares
// keys as written; both are for the reference decoder.
func (d *fastDecoder) key() ([]byte, bool) {
	if !d.byte('"') {
		return nil, false
	}
	data, start := d.data, d.pos
	for i := start; i < len(data); i++ {
		c := data[i]
		if c == '"' {
			d.pos = i + 1
			if !d.byte(':') {
				return nil, false
			}
			return data[start:i], true
		}
		if c == '\\' || c < 0x20 || c >= 0x7f { // DEL too: a map's keys are text
			return nil, false
		}
	}
	return nil, false
}

// str reads a JSON string. Escapes are undone as encoding/json does; a string that is not valid
// UTF-8, or holds a UTF-16 surrogate escape, is declined (encoding/json replaces what is
// invalid with U+FFFD; no need to copy that rule here).
func (d *fastDecoder) str(v *string) bool {
	if !d.byte('"') {
		return false
	}
	data, start := d.data, d.pos
	ascii := true
	for i := start; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			b := data[start:i]
			if !ascii && !utf8.Valid(b) {
				return false
			}
			*v = d.intern(b)
			return true
		case c == '\\':
			return d.escaped(v, start)
		case c < 0x20:
			return false
		case c >= 0x7f:
			d.unplain = true
			ascii = ascii && c < 0x80
		}
	}
	return false
}

// escaped reads the rest of a string that holds an escape; its contents start at start.
func (d *fastDecoder) escaped(v *string, start int) bool {
	data := d.data
	buf := make([]byte, 0, 64)
	for i := start; i < len(data); {
		c := data[i]
		switch {
		case c == '"':
			if !utf8.Valid(buf) {
				return false
			}
			// An escaped quote (an ETag's), slash or backslash, or a \u escape of printable
			// ASCII (encoding/json writes '<', '>' and '&' so), is still plain text.
			for _, b := range buf {
				if b < 0x20 || b >= 0x7f {
					d.unplain = true
					break
				}
			}
			d.pos = i + 1
			*v = string(buf)
			return true
		case c < 0x20:
			return false
		case c != '\\':
			buf = append(buf, c)
			i++
			continue
		}
		if i+1 >= len(data) {
			return false
		}
		if b, ok := jsonstr.Unescape(data[i+1]); ok {
			buf = append(buf, b)
			i += 2
			continue
		}
		if data[i+1] != 'u' || i+6 > len(data) {
			return false
		}
		r, err := strconv.ParseUint(string(data[i+2:i+6]), 16, 32)
		if err != nil || utf16.IsSurrogate(rune(r)) {
			return false
		}
		buf = utf8.AppendRune(buf, rune(r))
		i += 6
	}
	return false
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

func (d *fastDecoder) boolean(v *bool) bool {
	d.ws()
	rest := d.data[d.pos:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		*v = true
		d.pos += 4
		return true
	case len(rest) >= 5 && string(rest[:5]) == "false":
		*v = false
		d.pos += 5
		return true
	}
	return false
}

// number returns the JSON number at the current position and whether it is an integer (no
// fraction, no exponent); ok is false for anything that is not a JSON number.
func (d *fastDecoder) number() (num []byte, integer, ok bool) {
	d.ws()
	data, i := d.data, d.pos
	start := i
	if i < len(data) && data[i] == '-' {
		i++
	}
	digits := func() bool {
		j := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		return i > j
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case !digits():
		return nil, false, false
	}
	integer = true
	if i < len(data) && data[i] == '.' {
		i++
		if !digits() {
			return nil, false, false
		}
		integer = false
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if !digits() {
			return nil, false, false
		}
		integer = false
	}
	d.pos = i
	return data[start:i], integer, true
}

// signed reads an integer literal (no fraction, no exponent) that fits in bits.
func (d *fastDecoder) signed(bits int) (int64, bool) {
	num, integer, ok := d.number()
	if !ok || !integer {
		return 0, false
	}
	n, err := strconv.ParseInt(string(num), 10, bits)
	return n, err == nil
}

func (d *fastDecoder) int64(v *int64) (ok bool) { *v, ok = d.signed(64); return ok }

func (d *fastDecoder) int32(v *int32) bool {
	n, ok := d.signed(32)
	*v = int32(n)
	return ok
}

func (d *fastDecoder) integer(v *int) bool {
	n, ok := d.signed(strconv.IntSize)
	*v = int(n)
	return ok
}

func (d *fastDecoder) float64(v *float64) bool {
	num, _, ok := d.number()
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(string(num), 64)
	*v = f
	return err == nil
}

// unmarshaler hands a value that is a plain string (no escapes) to the type's own
// UnmarshalJSON, as the reference decoder does; anything else is declined.
func (d *fastDecoder) unmarshaler(u json.Unmarshaler) bool {
	d.ws()
	data, start := d.data, d.pos
	if start >= len(data) || data[start] != '"' {
		return false
	}
	for i := start + 1; i < len(data); i++ {
		c := data[i]
		if c == '"' {
			d.pos = i + 1
			return u.UnmarshalJSON(data[start:d.pos]) == nil
		}
		if c == '\\' || c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return false
}

// parallelMin is the size from which a JSON snapshot's servers are decoded side by side: below
// it, one decode takes a few milliseconds and goroutines would not pay off.
const parallelMin = 1 << 20

// servers decodes the "servers" array; in a large snapshot (parallelMin), its elements side by
// side: this goroutine finds where each element ends (a quick pass over brackets and strings)
// and hands it to workers, one per CPU, which decode the elements found while it looks for the
// next, each with a decoder of its own.
func (d *fastDecoder) servers(v *[]Server) bool {
	if len(d.data) < parallelMin || runtime.GOMAXPROCS(0) < 2 {
		return d.decodeSliceOfServer(v)
	}
	if !d.arrayStart() {
		return false
	}
	if d.arrayEnd() {
		*v = []Server{}
		return true
	}
	d.ws()
	if d.serversAsIndented(v) {
		return true
	}
	type element struct {
		start, end int
		out        *Server
	}
	found := make(chan element, 64)
	var failed, unplain atomic.Bool
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// One decoder per worker: its scratch slices and interned strings serve every
			// server the worker decodes.
			ed := &fastDecoder{strs: new(internCache)}
			for e := range found {
				if failed.Load() {
					continue
				}
				ed.data, ed.pos = d.data[:e.end], e.start
				if !ed.decodeServer(e.out) || !ed.atEnd() {
					failed.Store(true)
				}
			}
			if ed.unplain {
				unplain.Store(true)
			}
		}()
	}
	var out []*Server
	scanned := func() bool {
		for {
			d.ws()
			end := objectEnd(d.data, d.pos)
			if end < 0 {
				return false
			}
			e := element{start: d.pos, end: end, out: new(Server)}
			out = append(out, e.out)
			found <- e
			d.pos = end
			more, ok := d.more(']')
			if !ok {
				return false
			}
			if !more {
				return true
			}
		}
	}()
	close(found)
	wg.Wait()
	if !scanned || failed.Load() {
		return false
	}
	d.unplain = d.unplain || unplain.Load()
	servers := make([]Server, len(out))
	for i, srv := range out {
		servers[i] = *srv
	}
	*v = servers
	return true
}

// indentedServerBoundary is what separates two servers in a snapshot as mvpctl writes it
// (json.MarshalIndent, two spaces): the first server's closing brace and the next one's opening
// brace, four spaces in. JSON strings hold no raw newline, so it occurs nowhere else there.
var indentedServerBoundary = []byte("\n    },\n    {\n")

// serversAsIndented decodes the servers of a snapshot indented as mvpctl writes it side by side
// without a pass to find where each ends: each server is taken to start after an
// indentedServerBoundary, all are decoded at once, and then it is checked that each ends
// exactly where the next was taken to start (after a ',' and white space), and the last before
// the array's ']'. A decoder is deterministic, so each server is then decoded from exactly
// where a decoder going through the array one server after the other would start it. Any
// other layout (compact JSON, a boundary that is not one) reports false, with d unmoved.
func (d *fastDecoder) serversAsIndented(v *[]Server) bool {
	starts := []int{d.pos}
	for i := d.pos; ; {
		j := bytes.Index(d.data[i:], indentedServerBoundary)
		if j < 0 {
			break
		}
		if len(starts) == 1<<12 {
			return false // not servers
		}
		i += j + len(indentedServerBoundary)
		starts = append(starts, i-2)
	}
	if len(starts) < 2 {
		return false
	}
	servers := make([]Server, len(starts))
	ends := make([]int, len(starts)) // -1: not a server
	var next atomic.Int64
	var unplain atomic.Bool // a server decoded (or taken for one) held text that is not plain
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(starts)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ed := &fastDecoder{data: d.data, strs: new(internCache)}
			for i := int(next.Add(1) - 1); i < len(starts); i = int(next.Add(1) - 1) {
				ed.pos, ends[i] = starts[i], -1
				if ed.decodeServer(&servers[i]) {
					ends[i] = ed.pos
				}
			}
			if ed.unplain {
				unplain.Store(true)
			}
		}()
	}
	wg.Wait()
	d.unplain = d.unplain || unplain.Load()
	for i := 0; ends[i] >= 0; i++ {
		e := fastDecoder{data: d.data, pos: ends[i]}
		switch more, ok := e.more(']'); {
		case !ok:
			return false
		case !more:
			d.pos = e.pos
			*v = servers[: i+1 : i+1]
			return true
		}
		if e.ws(); i+1 == len(starts) || e.pos != starts[i+1] {
			return false
		}
	}
	return false
}

// objectEnd returns the end of the object that starts at i, or -1 when data[i] does not start
// one or it is not closed. Only brackets and strings are looked at: the element's decoder
// checks the rest.
func objectEnd(data []byte, i int) int {
	if i >= len(data) || data[i] != '{' {
		return -1
	}
	depth := 0
	for ; i < len(data); i++ {
		if !jsonSpecial[data[i]] {
			for i+9 <= len(data) && binary.LittleEndian.Uint64(data[i+1:]) == 0x2020202020202020 {
				i += 8
			}
			continue
		}
		switch data[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		case '"':
			i = stringEnd(data, i+1)
		}
	}
	return -1
}
