// Package auditlog reads the few fields of a Kubernetes audit event that traffic replay needs,
// without decoding the rest.
package auditlog

// Fields are the top-level string fields of an audit.k8s.io Event that replay reads (the audit
// ID tells the two events of a proxied request: the proxying server's and its peer's). Each is
// nil when the event lacks it (or has it as null), and otherwise aliases the line or Scratch.
type Fields struct {
	Kind, APIVersion, Stage, Verb, RequestURI, UserAgent, AuditID []byte
	// RequestReceivedTimestamp is a string field like the others. Code is the integer literal
	// of responseStatus.code (nested: what encoding/json reads into a field
	// ResponseStatus struct{ Code int32 }); the two tell which server of a proxied request's
	// pair received it first and what each answered.
	RequestReceivedTimestamp, Code []byte
	// Scratch holds unescaped values; it is reused from one Scan to the next.
	Scratch []byte
}

// maxDepth bounds nesting; deeper lines are left to encoding/json.
const maxDepth = 512

// Scan validates line as one JSON value and, when it is an object, fills f with the seven
// fields, with the meaning encoding/json.Unmarshal into a struct of seven string fields gives
// them: the last occurrence of a key wins, null leaves a field alone.
//
// It returns false when the line is not valid JSON, or when encoding/json might read it
// differently from this fast path: a top-level value that is not an object, a wanted field
// that is not a string or null, a key that is escaped, not ASCII, or equal to a wanted key
// but for case (encoding/json matches keys case-insensitively), a wanted value with a
// surrogate escape or bytes outside ASCII. Callers then decode the line with encoding/json,
// which is the reference: Scan never accepts a line encoding/json rejects, and never reads a
// value differently.
func Scan(line []byte, f *Fields) bool {
	*f = Fields{Scratch: f.Scratch[:0]}
	s := scanner{b: line}
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return false
	}
	if !s.object(f) {
		return false
	}
	s.ws()
	return s.i == len(s.b)
}

type scanner struct {
	b     []byte
	i     int
	depth int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// object scans the top-level object at s.i, filling f.
func (s *scanner) object(f *Fields) bool {
	s.i++ // '{'
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	for {
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return false
		}
		start := s.i + 1
		end, plain := s.str()
		if end < 0 || !plain {
			return false // invalid, or an escaped or non-ASCII key
		}
		key := s.b[start:end]
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.ws()
		dst := f.field(key)
		if dst == nil && string(key) == "responseStatus" {
			if !s.status(f) {
				return false
			}
		} else if dst == nil && foldsToWanted(key) {
			return false
		} else if dst != nil {
			if s.i >= len(s.b) {
				return false
			}
			switch s.b[s.i] {
			case '"':
				v, ok := s.stringValue(f)
				if !ok {
					return false
				}
				*dst = v
			case 'n':
				if !s.lit("null") {
					return false
				}
			default:
				return false // a type error: encoding/json words it
			}
		} else if !s.value() {
			return false
		}
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.ws()
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

func (f *Fields) field(key []byte) *[]byte {
	switch string(key) {
	case "kind":
		return &f.Kind
	case "apiVersion":
		return &f.APIVersion
	case "stage":
		return &f.Stage
	case "verb":
		return &f.Verb
	case "requestURI":
		return &f.RequestURI
	case "userAgent":
		return &f.UserAgent
	case "auditID":
		return &f.AuditID
	case "requestReceivedTimestamp":
		return &f.RequestReceivedTimestamp
	}
	return nil
}

var wanted = []string{"kind", "apiversion", "stage", "verb", "requesturi", "useragent", "auditid", "requestreceivedtimestamp", "responsestatus"}

// status scans the value of responseStatus: null (no effect), or an object whose "code" is an
// integer literal of at most nine digits or null. Anything else (another type, a code key
// spelt in another case, a fraction, a larger number) is left to encoding/json.
func (s *scanner) status(f *Fields) bool {
	if s.i >= len(s.b) {
		return false
	}
	if s.b[s.i] == 'n' {
		return s.lit("null")
	}
	if s.b[s.i] != '{' {
		return false
	}
	if empty, ok := s.open('}'); !ok || empty {
		return ok
	}
	for {
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return false
		}
		start := s.i + 1
		end, plain := s.str()
		if end < 0 || !plain {
			return false
		}
		key := s.b[start:end]
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.ws()
		switch {
		case string(key) == "code":
			if s.i < len(s.b) && s.b[s.i] == 'n' {
				if !s.lit("null") {
					return false
				}
				break
			}
			v := s.i
			if v >= len(s.b) || !s.number() {
				return false
			}
			lit := s.b[v:s.i]
			if !isCode(lit) {
				return false // a fraction, an exponent or too many digits: maybe not an int32 to encoding/json
			}
			f.Code = lit
		case len(key) == 4 && foldsTo(key, "code"):
			return false
		default:
			if !s.value() {
				return false
			}
		}
		if more, ok := s.afterElement('}'); !ok || !more {
			return ok
		}
	}
}

// foldsTo reports whether an ASCII key equals the lowercase w but for case.
func foldsTo(key []byte, w string) bool {
	if len(key) != len(w) {
		return false
	}
	for i := range key {
		c := key[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[i] {
			return false
		}
	}
	return true
}

// foldsToWanted reports whether an ASCII key equals a wanted key but for case. Only the wanted
// keys of the key's length are compared (wantedByLength): most keys of an event have none.
func foldsToWanted(key []byte) bool {
	if len(key) >= len(wantedByLength) {
		return false
	}
	for _, w := range wantedByLength[len(key)] {
		if foldsTo(key, w) {
			return true
		}
	}
	return false
}

// wantedByLength is wanted indexed by length.
var wantedByLength = func() (byLength [][]string) {
	for _, w := range wanted {
		for len(byLength) <= len(w) {
			byLength = append(byLength, nil)
		}
		byLength[len(w)] = append(byLength[len(w)], w)
	}
	return byLength
}()

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
