//go:build !snapdecode

package snapshot

//go:generate go run -tags snapdecode ../../tools/gen/snapdecode -o fastdecode_gen.go

import (
	"encoding/binary"
	"encoding/json"
	"strconv"
	"sync/atomic"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mvpctl/mvpctl/internal/jsonstr"
)

// fastDecoder is the generated, reflection-free JSON decoder's state (fastdecode_gen.go holds
// one decode method per type, written by tools/gen/snapdecode). Each method either decodes
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
	// refused is set, for the decoder and those it starts, once a list passed its bound
	// (MaxRequestCountRows): the snapshot is refused, no other decoder tried.
	refused *atomic.Bool
	// unplain is set once a string decoded holds a byte outside printable ASCII (written as
	// it is or escaped): only then may the decoded text hold what validation's walk over every
	// string looks for (checkText).
	unplain bool
}

const internBits = 12

type internCache [1 << internBits]string

// fastDecode decodes data, one JSON object and white space around it, into s, or reports false
// (s is then to be reset). plainText reports that every string decoded is printable ASCII, so
// that validation need not walk the strings (checkText).
func fastDecode(data []byte, s *Snapshot) (ok, plainText bool, refused error) {
	d := fastDecoder{data: data, strs: new(internCache), refused: new(atomic.Bool)}
	ok = d.decodeSnapshot(s) && d.atEnd()
	if d.refused.Load() {
		return false, false, errTooManyRequestCounts
	}
	return ok, ok && !d.unplain, nil
}

// refuse stops the decode: the snapshot is refused whole.
func (d *fastDecoder) refuse() { d.refused.Store(true) }

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
