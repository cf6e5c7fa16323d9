package auditlog

import "math/bits"

// scanPlain is Scan for a line whose bytes before its trailing whitespace are all plain ASCII
// (no control character, nothing above 0x7f), with m computed over them. It reads the same
// grammar and gives the same answers as the recursive scanner, as one function whose
// position stays in a register and whose grammar state is where it is in the code (each
// label a state), and it finds the end of a string from m's bitmaps rather than by looking
// at its bytes. deep reports a line nested deeper than 64, which it leaves to the recursive
// scanner.
//
// Whitespace between tokens can only be spaces here: tabs, newlines and carriage returns are
// control characters, which m excludes, but for those that trail the line (read at the end).
func scanPlain(b []byte, m *lineMasks, f *Fields) (ok, deep bool) {
	// What the value being read means to f, set by the key before it.
	const (
		other  = iota
		field  // a wanted string field at the top level: dst
		status // responseStatus at the top level
		code   // code in responseStatus
	)
	var (
		quotes   = m.quotes
		i, end   int
		depth    int    // containers open; the top-level object is depth 1
		arrays   uint64 // bit d-1 set: the container at depth d is an array
		meaning  = other
		dst      *[]byte
		statusAt int // depth of responseStatus's object, 0 when not in it
		c        byte
	)
	for i < len(b) && b[i] == ' ' {
		i++
	}
	if i >= len(b) || b[i] != '{' {
		return false, false
	}
	depth = 1
	i++
	for i < len(b) && b[i] == ' ' {
		i++
	}
	if i < len(b) && b[i] == '}' {
		goto closeContainer
	}

key: // in an object, after '{' or ','
	for i < len(b) && b[i] == ' ' {
		i++
	}
	if i >= len(b) || b[i] != '"' {
		return false, false
	}
	end = nextQuote(quotes, i+1)
	if end < 0 {
		return false, false
	}
	meaning = other
	if depth == 1 {
		if m.anyBackslash && !m.plain(i, end) {
			return false, false // an escaped key
		}
		key := b[i+1 : end]
		if dst = f.field(key); dst != nil {
			meaning = field
		} else if string(key) == "responseStatus" {
			meaning = status
		} else if foldsToWanted(key) {
			return false, false
		}
	} else if depth == statusAt {
		if m.anyBackslash && !m.plain(i, end) {
			return false, false
		}
		key := b[i+1 : end]
		if string(key) == "code" {
			meaning = code
		} else if len(key) == 4 && foldsTo(key, "code") {
			return false, false
		}
	}
	i = end + 1
	for i < len(b) && b[i] == ' ' {
		i++
	}
	if i >= len(b) || b[i] != ':' {
		return false, false
	}
	i++

value: // after ':', or in an array after '[' or ','
	for i < len(b) && b[i] == ' ' {
		i++
	}
	if i >= len(b) {
		return false, false
	}
	switch c = b[i]; {
	case c == '"':
		if meaning == status || meaning == code {
			return false, false
		}
		end = nextQuote(quotes, i+1)
		if end < 0 {
			return false, false
		}
		if meaning == field {
			if !m.anyBackslash || m.plain(i, end) {
				*dst = b[i+1 : end]
			} else {
				v, ok := unescape(b[i+1:end], f)
				if !ok {
					return false, false
				}
				*dst = v
			}
		}
		i = end + 1
	case c == '{':
		if meaning == field || meaning == code {
			return false, false
		}
		if meaning == status {
			statusAt = depth + 1
		}
		if depth++; depth > 64 {
			return false, true
		}
		arrays &^= 1 << (depth - 1)
		meaning = other
		for i++; i < len(b) && b[i] == ' '; i++ {
		}
		if i < len(b) && b[i] == '}' {
			goto closeContainer
		}
		goto key
	case c == '[':
		if meaning != other {
			return false, false
		}
		if depth++; depth > 64 {
			return false, true
		}
		arrays |= 1 << (depth - 1)
		for i++; i < len(b) && b[i] == ' '; i++ {
		}
		if i < len(b) && b[i] == ']' {
			goto closeContainer
		}
		goto value
	case c == 'n':
		if len(b)-i < 4 || string(b[i:i+4]) != "null" {
			return false, false
		}
		i += 4 // null leaves a field alone
	case c == 't':
		if meaning != other || len(b)-i < 4 || string(b[i:i+4]) != "true" {
			return false, false
		}
		i += 4
	case c == 'f':
		if meaning != other || len(b)-i < 5 || string(b[i:i+5]) != "false" {
			return false, false
		}
		i += 5
	case c == '-' || '0' <= c && c <= '9':
		if meaning == field || meaning == status {
			return false, false
		}
		end = number(b, i)
		if end < 0 {
			return false, false
		}
		if meaning == code {
			if !isCode(b[i:end]) {
				return false, false
			}
			f.Code = b[i:end]
		}
		i = end
	default:
		return false, false
	}
	meaning = other

afterValue: // ',' or the end of the container
	for i < len(b) && b[i] == ' ' {
		i++
	}
	if i >= len(b) {
		return false, false
	}
	c = b[i]
	if c == ',' {
		i++
		if arrays&(1<<(depth-1)) != 0 {
			goto value
		}
		goto key
	}
	if c == '}' && arrays&(1<<(depth-1)) == 0 || c == ']' && arrays&(1<<(depth-1)) != 0 {
		goto closeContainer
	}
	return false, false

closeContainer: // at the '}' or ']' that closes depth
	i++
	if depth == statusAt {
		statusAt = 0
	}
	if depth--; depth > 0 {
		goto afterValue
	}
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i == len(b), false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// nextQuote returns the position of the first quote at or after i, or -1.
func nextQuote(quotes []uint64, i int) int {
	k := i >> 6
	if k >= len(quotes) {
		return -1
	}
	w := quotes[k] >> (i & 63)
	for w == 0 {
		if k++; k >= len(quotes) {
			return -1
		}
		w, i = quotes[k], k<<6
	}
	return i + bits.TrailingZeros64(w)
}

func number(b []byte, i int) int {
	s := scanner{b: b, i: i}
	if !s.number() {
		return -1
	}
	return s.i
}

// isCode reports whether a number literal is what Scan takes for responseStatus.code: an
// integer of at most nine digits, so certainly an int32 to encoding/json.
func isCode(lit []byte) bool {
	digits := lit
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 9 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
