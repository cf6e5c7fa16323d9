package auditlog

import "math/bits"

// lineMasks locates a line's string boundaries with one vector pass (masks64), so that
// scanning a string needs no look at its bytes: it ends at the next quote that no backslash
// escapes. It is made only for lines whose bytes are plain ASCII (no control character,
// nothing above 0x7f), the lines audit logs hold; others are scanned byte by byte.
type lineMasks struct {
	// quotes has bit j of word k set when byte 64k+j of the line is a quote no backslash
	// escapes; backslashes likewise for the backslashes, escaped or not.
	quotes, backslashes []uint64
	anyBackslash        bool
}

// spaces pads a line's last partial chunk: a space is neither a quote, a backslash nor
// outside the plain range.
var spaces = func() (p [64]byte) {
	for i := range p {
		p[i] = ' '
	}
	return
}()

// compute fills m for line and reports whether m is usable: every byte of line is plain
// ASCII, and every backslash (read left to right, as in a string) starts a valid escape.
// An escape outside a string is invalid JSON all the same, and the scan fails on the
// backslash, which it meets before anything the escape hides.
func (m *lineMasks) compute(line []byte) bool {
	words := (len(line) + 63) / 64
	if cap(m.quotes) < words {
		m.quotes, m.backslashes = make([]uint64, words+8), make([]uint64, words+8)
	}
	m.quotes, m.backslashes = m.quotes[:words], m.backslashes[:words]
	full := len(line) / 64
	outside := false
	if full > 0 {
		outside = masks64(&line[0], full, &m.quotes[0], &m.backslashes[0])
	}
	if full < words && !outside {
		pad := spaces
		copy(pad[:], line[full*64:])
		outside = masks64(&pad[0], 1, &m.quotes[full], &m.backslashes[full])
	}
	if outside {
		return false
	}
	var any uint64
	for _, w := range m.backslashes {
		any |= w
	}
	m.anyBackslash = any != 0
	return !m.anyBackslash || m.escapes(line)
}

// escapes checks every escape of line and clears the quotes they escape.
func (m *lineMasks) escapes(line []byte) bool {
	escaped := -1 // a backslash escaped by the one before it
	for k, w := range m.backslashes {
		for ; w != 0; w &= w - 1 {
			p := k<<6 + bits.TrailingZeros64(w)
			if p == escaped {
				continue
			}
			e := p + 1
			if e >= len(line) {
				return false
			}
			switch line[e] {
			case '"':
				m.quotes[e>>6] &^= 1 << (e & 63)
			case '\\':
				escaped = e
			case '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if e+5 > len(line) || !isHex(line[e+1]) || !isHex(line[e+2]) || !isHex(line[e+3]) || !isHex(line[e+4]) {
					return false
				}
			default:
				return false
			}
		}
	}
	return true
}

// plain reports whether the string between the quotes at open and end holds no escape.
func (m *lineMasks) plain(open, end int) bool {
	if !m.anyBackslash {
		return true
	}
	lo, hi := open+1, end // the bits [lo, hi)
	if lo >= hi {
		return true
	}
	k, last := lo>>6, (hi-1)>>6
	w := m.backslashes[k] &^ (1<<(lo&63) - 1)
	for k < last {
		if w != 0 {
			return false
		}
		k++
		w = m.backslashes[k]
	}
	return w&(^uint64(0)>>(63-(hi-1)&63)) == 0
}
