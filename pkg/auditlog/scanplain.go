package auditlog

import "math/bits"

// scanPlain is Scan for a line whose bytes before its trailing whitespace are all plain ASCII
// (no control character, nothing above 0x7f), with m computed over them. It reads the same
// grammar and gives the same answers as the recursive scanner, but as one loop whose position
// and state stay in registers, and finds the end of an unescaped string from m's bitmaps
// rather than by looking at its bytes. deep reports a line nested deeper than 64, which it
// leaves to the recursive scanner.
func scanPlain(b []byte, m *lineMasks, f *Fields) (ok, deep bool) {
	quotes := m.quotes
	// What the value being read means to f, set by the key before it.
	const (
		other     = iota
		field     // a wanted string field at the top level: dst
		status    // responseStatus at the top level
		code      // code in responseStatus
		wantKey   // state: a key, after '{' (or '}' at once) or ','
		wantValue // state: a value, after ':', '[' (or ']' at once) or ','
		wantMore  // state: ',' or the end of the container
	)
	var (
		i        int
		depth    int    // containers open; the top-level object is depth 1
		arrays   uint64 // bit d-1 set: the container at depth d is an array
		state    = wantKey
		empty    bool // the container just opened may close at once
		meaning  = other
		dst      *[]byte
		statusAt int // depth of responseStatus's object, 0 when not in it
	)
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	if i >= len(b) || b[i] != '{' {
		return false, false
	}
	i++
	depth, empty = 1, true
	for {
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i >= len(b) {
			return false, false
		}
		c := b[i]
		switch state {
		case wantKey:
			if c == '}' && empty {
				goto closeContainer
			}
			if c != '"' {
				return false, false
			}
			end := i + 1
			{ // the next quote: the string's end
				k := end >> 6
				if k >= len(quotes) {
					return false, false
				}
				w := quotes[k] >> (end & 63)
				for w == 0 {
					if k++; k >= len(quotes) {
						return false, false
					}
					w, end = quotes[k], k<<6
				}
				end += bits.TrailingZeros64(w)
			}
			meaning = other
			if depth == 1 || depth == statusAt {
				if !m.plain(i, end) {
					return false, false // an escaped or non-ASCII key
				}
				key := b[i+1 : end]
				if depth == 1 {
					if dst = f.field(key); dst != nil {
						meaning = field
					} else if string(key) == "responseStatus" {
						meaning = status
					} else if foldsToWanted(key) {
						return false, false
					}
				} else if string(key) == "code" {
					meaning = code
				} else if len(key) == 4 && foldsTo(key, "code") {
					return false, false
				}
			}
			i = end + 1
			for i < len(b) && isSpace(b[i]) {
				i++
			}
			if i >= len(b) || b[i] != ':' {
				return false, false
			}
			i++
			state, empty = wantValue, false
			continue
		case wantValue:
			if c == ']' && empty {
				goto closeContainer
			}
			switch {
			case c == '"':
				if meaning == status || meaning == code {
					return false, false
				}
				start, end := i+1, i+1
				{ // the next quote: the string's end
					k := end >> 6
					if k >= len(quotes) {
						return false, false
					}
					w := quotes[k] >> (end & 63)
					for w == 0 {
						if k++; k >= len(quotes) {
							return false, false
						}
						w, end = quotes[k], k<<6
					}
					end += bits.TrailingZeros64(w)
				}
				if meaning == field {
					if m.plain(i, end) {
						*dst = b[start:end]
					} else {
						v, ok := unescape(b[start:end], f)
						if !ok {
							return false, false
						}
						*dst = v
					}
				}
				i = end + 1
			case c == '{' || c == '[':
				if meaning == field || meaning == code || meaning == status && c == '[' {
					return false, false
				}
				if meaning == status {
					statusAt = depth + 1
				}
				if depth++; depth > 64 {
					return false, true // the recursive scanner's depth bound is larger
				}
				if c == '[' {
					arrays |= 1 << (depth - 1)
					state = wantValue
				} else {
					arrays &^= 1 << (depth - 1)
					state = wantKey
				}
				i++
				empty, meaning = true, other
				continue
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
				end := number(b, i)
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
			state, meaning = wantMore, other
			continue
		default: // wantMore
			if c == ',' {
				i, empty = i+1, false
				if arrays&(1<<(depth-1)) != 0 {
					state = wantValue
				} else {
					state = wantKey
				}
				continue
			}
			if c == ']' && arrays&(1<<(depth-1)) != 0 || c == '}' && arrays&(1<<(depth-1)) == 0 {
				goto closeContainer
			}
			return false, false
		}
	closeContainer:
		i++
		if depth == statusAt {
			statusAt = 0
		}
		if depth--; depth == 0 {
			for i < len(b) && isSpace(b[i]) {
				i++
			}
			return i == len(b), false
		}
		state, empty, meaning = wantMore, false, other
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// number returns the end of the JSON number at b[i]
// (-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?), or -1.
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
