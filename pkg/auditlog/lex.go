package auditlog

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

	"github.com/mvpctl/mvpctl/internal/jsonstr"
)

// The validating JSON lexer Scan is built on: strings (found eight bytes at a time), values
// skipped whole, numbers and literals checked, nesting bounded by maxDepth.

// strStop marks the bytes that end a fast run through a string: '"', '\\', control
// characters (invalid in JSON strings) and bytes outside ASCII.
var strStop = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= 0x80
	}
	return
}()

// str scans the string at s.i (at its opening quote) and returns the index of its closing
// quote, or -1 when it is invalid; plain is false when it holds escapes or non-ASCII bytes.
func (s *scanner) str() (end int, plain bool) {
	plain = true
	b := s.b
	i := s.i + 1
	for {
		// Eight bytes at a time, up to the first that stops the run: the lowest byte stops8
		// flags is exact, so no byte-by-byte look is needed after a word that has one.
		for i+8 <= len(b) {
			if m := stops8(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto stop
			}
			i += 8
		}
		for i < len(b) && !strStop[b[i]] {
			i++
		}
	stop:
		if i >= len(b) {
			return -1, false
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return i, plain
		case c == '\\':
			plain = false
			if i+1 >= len(b) {
				return -1, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return -1, false
				}
				i += 6
			default:
				return -1, false
			}
		case c < 0x20:
			return -1, false
		default: // >= 0x80: encoding/json accepts any bytes here
			plain = false
			i++
		}
	}
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// stops8 flags (with its high bit) each of the eight bytes of x, little-endian, that strStop
// marks: '"', '\\', below 0x20 or above 0x7f. The lowest flagged byte is exact: a borrow can
// only flag a byte to the left of one that is really flagged. 0 when none is.
func stops8(x uint64) uint64 {
	q := x ^ ('"' * ones)
	bs := x ^ ('\\' * ones)
	return ((q-ones)&^q | (bs-ones)&^bs | (x - 0x20*ones) | x) & highs
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func hexVal(c byte) rune {
	switch {
	case c <= '9':
		return rune(c - '0')
	case c >= 'a':
		return rune(c - 'a' + 10)
	default:
		return rune(c - 'A' + 10)
	}
}

// stringValue scans a wanted string value and returns it unescaped.
func (s *scanner) stringValue(f *Fields) ([]byte, bool) {
	start := s.i + 1
	end, plain := s.str()
	if end < 0 {
		return nil, false
	}
	raw := s.b[start:end]
	if plain {
		return raw, true
	}
	return unescape(raw, f)
}

// unescape decodes the escapes of a valid string's contents onto f.Scratch. It declines
// (false) bytes outside ASCII and surrogate escapes.
func unescape(raw []byte, f *Fields) ([]byte, bool) {
	// Should the append move Scratch, earlier values keep the old backing array, which
	// nothing writes to any more.
	n := len(f.Scratch)
	out := f.Scratch
	for i := 0; i < len(raw); {
		c := raw[i]
		if c >= 0x80 {
			return nil, false // encoding/json replaces invalid UTF-8: leave it to it
		}
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		if b, ok := jsonstr.Unescape(raw[i+1]); ok {
			out = append(out, b)
			i += 2
			continue
		}
		// \uXXXX: raw is a valid string's contents, so nothing else follows a backslash.
		r := hexVal(raw[i+2])<<12 | hexVal(raw[i+3])<<8 | hexVal(raw[i+4])<<4 | hexVal(raw[i+5])
		if 0xD800 <= r && r < 0xE000 {
			return nil, false // surrogates: leave pairing and replacement to encoding/json
		}
		out = utf8.AppendRune(out, r)
		i += 6
	}
	f.Scratch = out
	return out[n:], true
}

func (s *scanner) lit(l string) bool {
	if len(s.b)-s.i < len(l) || string(s.b[s.i:s.i+len(l)]) != l {
		return false
	}
	s.i += len(l)
	return true
}

// value validates and skips any JSON value.
func (s *scanner) value() bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		end, _ := s.str()
		return end >= 0
	case c == '{':
		return s.skipObject()
	case c == '[':
		return s.skipArray()
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.lit("null")
	case c == '-' || '0' <= c && c <= '9':
		return s.number()
	}
	return false
}

func (s *scanner) skipObject() bool {
	if empty, ok := s.open('}'); !ok || empty {
		return ok
	}
	for {
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return false
		}
		if end, _ := s.str(); end < 0 {
			return false
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.ws()
		if !s.value() {
			return false
		}
		if more, ok := s.afterElement('}'); !ok || !more {
			return ok
		}
	}
}

func (s *scanner) skipArray() bool {
	if empty, ok := s.open(']'); !ok || empty {
		return ok
	}
	for {
		if !s.value() {
			return false
		}
		if more, ok := s.afterElement(']'); !ok || !more {
			return ok
		}
	}
}

func (s *scanner) digits() int {
	n := 0
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

// number validates a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	if s.b[s.i] == '-' {
		s.i++
	}
	if s.i >= len(s.b) {
		return false
	}
	if s.b[s.i] == '0' {
		s.i++
	} else if s.digits() == 0 {
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

// afterElement reads what follows a member or an element: ',' (more follow: more is true) or
// end, which closes the object or array. ok is false on anything else.
func (s *scanner) afterElement(end byte) (more, ok bool) {
	s.ws()
	if s.i >= len(s.b) {
		return false, false
	}
	switch s.b[s.i] {
	case ',':
		s.i++
		s.ws()
		return true, true
	case end:
		s.i++
		s.depth--
		return false, true
	}
	return false, false
}

// open enters an object or array at s.i (its opening byte): ok is false past maxDepth, and
// empty is true when end closes it at once (consumed).
func (s *scanner) open(end byte) (empty, ok bool) {
	if s.depth++; s.depth > maxDepth {
		return false, false
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == end {
		s.i++
		s.depth--
		return true, true
	}
	return false, true
}
