package snapshot

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/mvpctl/mvpctl/internal/parallel"
)

// Strings of a snapshot end up on terminals (tables, explanations, errors) as they are. One
// holding an escape sequence would retitle the window or clear the screen of whoever reads a
// snapshot attached to a ticket, so Validate rejects what a snapshot mvpctl wrote never holds.

// checkServerName returns an error when name is not printable ASCII without spaces: what
// hostnames, host:port addresses, lease names and the names of profiles and scenarios are.
func checkServerName(name, field string) error {
	for _, r := range name {
		if r <= ' ' || r >= 0x7f {
			return fmt.Errorf("%s: %q holds %s: a server name is printable ASCII without spaces (a hostname, host:port or lease name)", field, name, describeRune(r))
		}
	}
	return nil
}

// describeRune names r for an error: its Go quoting, and what kind of character it is.
func describeRune(r rune) string {
	switch {
	case r == utf8.RuneError:
		return "bytes that are not UTF-8"
	case r == ' ':
		return "a space"
	case unicode.IsControl(r):
		return fmt.Sprintf("the control character %q", r)
	case isFormatControl(r):
		return fmt.Sprintf("the text-direction control %q", r)
	case r >= 0x80:
		return fmt.Sprintf("the non-ASCII character %q", r)
	}
	return fmt.Sprintf("%q", r)
}

// unsafeRune returns the first character of s that must not reach a terminal: a control
// character other than tab and newline (ESC starts escape sequences, C1 controls such as
// U+009B act as one), a text-direction control (U+202A–U+202E, U+2066–U+2069, which reorder
// what is displayed), or bytes that are not UTF-8 (utf8.RuneError).
func unsafeRune(s string) (rune, bool) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < ' ' && c != '\t' && c != '\n') || c == 0x7f {
				return rune(c), true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || unicode.IsControl(r) || isFormatControl(r) {
			return r, true
		}
		i += n
	}
	return 0, false
}

func isFormatControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// plainInput reports whether every string decoded from data is certainly safe text, so that
// checkText has nothing to find: data holds only printable ASCII, tabs and newlines, with no
// backslash (the escapes of JSON and of YAML's double-quoted scalars start with one) and no '!'
// (a YAML tag such as !!binary can turn text into any bytes). Decoding such input, as JSON or
// as YAML, gives each string characters copied from the input as they are (a YAML block or
// folded scalar adds newlines), and mvpctl builds its other strings from those.
//
// A large input is checked on every CPU: a 72 MB snapshot would otherwise spend as long here
// as reading it.
func plainInput(data []byte) bool {
	words := len(data) / 8
	var bad atomic.Bool
	parallel.Chunks(words, plainChunk, func(lo, hi int) {
		if !plainWords(data[lo*8 : hi*8]) {
			bad.Store(true)
		}
	})
	if bad.Load() {
		return false
	}
	var tail [8]byte
	for i := range tail {
		tail[i] = ' '
	}
	copy(tail[:], data[words*8:])
	return plainWords(tail[:])
}

// plainChunk is the fewest eight-byte words plainInput checks on a goroutine of its own (1 MB).
const plainChunk = 1 << 17

// plainWords is plainInput for len(b) a multiple of eight, eight bytes at a time. Each mask
// below has a byte's high bit set exactly when that byte is of its kind: no carry crosses a
// byte, so no byte is sent to a slower check.
func plainWords(b []byte) bool {
	const ones, highs, lows = 0x0101010101010101, 0x8080808080808080, 0x7f7f7f7f7f7f7f7f
	zero := func(x uint64) uint64 { return ^((x&lows + lows) | x) & highs } // bytes equal to 0
	eq := func(w uint64, c byte) uint64 { return zero(w ^ uint64(c)*ones) }
	for ; len(b) >= 8; b = b[8:] {
		w := binary.LittleEndian.Uint64(b)
		control := ^(w&lows + 0x60*ones) & highs // low seven bits below 0x20
		if w&highs|control&^eq(w, '\t')&^eq(w, '\n')|eq(w, 0x7f)|eq(w, '\\')|eq(w, '!') != 0 {
			return false
		}
	}
	return true
}

// checkText walks every string of v (a snapshot, by reflection: the check cannot miss a field
// added later) and returns an error naming the first one holding an unsafeRune, by its path
// in the document (servers[0].peerProxy.evidence[1]).
func checkText(v any) error {
	bad := walkerOf(reflect.TypeOf(v))(reflect.ValueOf(v))
	if bad == nil {
		return nil
	}
	var path strings.Builder
	for i := len(bad.path) - 1; i >= 0; i-- {
		path.WriteString(bad.path[i])
	}
	return fmt.Errorf("%s: %q holds %s: a snapshot mvpctl wrote has none (one that reached a terminal could retitle it or clear the screen)",
		strings.TrimPrefix(path.String(), "."), bad.s, describeRune(bad.r))
}

type unsafeString struct {
	path []string // innermost first
	s    string
	r    rune
}

// A walker checks the strings of one type's values; nil for a type that holds none ([]byte,
// timestamps, numbers), so the walk skips those without looking at each element. Walkers are
// built once per type: the walk then does no type inspection, only field and element access.
type walker func(reflect.Value) *unsafeString

var (
	walkersMu sync.Mutex
	walkers   = map[reflect.Type]*walker{}
)

func walkerOf(t reflect.Type) walker {
	walkersMu.Lock()
	defer walkersMu.Unlock()
	w := buildWalker(t)
	if w == nil || *w == nil {
		return func(reflect.Value) *unsafeString { return nil }
	}
	return *w
}

// buildWalker returns the walker for t (walkersMu held). The pointer lets a recursive type
// refer to its own walker while it is being built.
func buildWalker(t reflect.Type) *walker {
	if w, ok := walkers[t]; ok {
		return w
	}
	w := new(walker)
	walkers[t] = w
	switch t.Kind() {
	case reflect.String:
		*w = walkString
	case reflect.Interface:
		*w = walkInterface
	case reflect.Pointer:
		*w = pointerWalker(t)
	case reflect.Slice, reflect.Array:
		*w = sequenceWalker(t)
	case reflect.Map:
		*w = mapWalker(t)
	case reflect.Struct:
		*w = structWalker(t)
	}
	if *w == nil {
		walkers[t] = nil
		return nil
	}
	return w
}

// walkString finds an unsafeRune in a string.
func walkString(v reflect.Value) *unsafeString {
	if r, bad := unsafeRune(v.String()); bad {
		return &unsafeString{s: v.String(), r: r}
	}
	return nil
}

// walkInterface walks what an interface holds, by its type when walking.
func walkInterface(v reflect.Value) *unsafeString {
	if v.IsNil() {
		return nil
	}
	return walkerOf2(v.Elem())
}

// pointerWalker walks what a pointer of type t points to; nil when that holds no string.
func pointerWalker(t reflect.Type) walker {
	elem := buildWalker(t.Elem())
	if elem == nil {
		return nil
	}
	return func(v reflect.Value) *unsafeString {
		if v.IsNil() || *elem == nil {
			return nil
		}
		return (*elem)(v.Elem())
	}
}

// sequenceWalker walks each element of a slice or array of type t, naming it by its index;
// nil when the elements hold no string.
func sequenceWalker(t reflect.Type) walker {
	elem := buildWalker(t.Elem())
	if elem == nil {
		return nil
	}
	return func(v reflect.Value) *unsafeString {
		if *elem == nil {
			return nil
		}
		for i := 0; i < v.Len(); i++ {
			if bad := (*elem)(v.Index(i)); bad != nil {
				bad.path = append(bad.path, fmt.Sprintf("[%d]", i))
				return bad
			}
		}
		return nil
	}
}

// mapWalker walks each key and value of a map of type t: a key is named as a key, a value by
// its key.
func mapWalker(t reflect.Type) walker {
	key, elem := buildWalker(t.Key()), buildWalker(t.Elem())
	return func(v reflect.Value) *unsafeString {
		for it := v.MapRange(); it.Next(); {
			if key != nil && *key != nil {
				if bad := (*key)(it.Key()); bad != nil {
					bad.path = append(bad.path, " (a key)")
					return bad
				}
			}
			if elem != nil && *elem != nil {
				if bad := (*elem)(it.Value()); bad != nil {
					bad.path = append(bad.path, fmt.Sprintf("[%q]", it.Key()))
					return bad
				}
			}
		}
		return nil
	}
}

// structWalker walks the encoded fields of a struct of type t that may hold a string, naming
// each by its name in the document; nil when none may.
func structWalker(t reflect.Type) walker {
	type field struct {
		index int
		name  string
		walk  *walker
	}
	var fields []field
	for i := 0; i < t.NumField(); i++ {
		name, skip := jsonName(t.Field(i))
		if skip {
			continue
		}
		if fw := buildWalker(t.Field(i).Type); fw != nil {
			fields = append(fields, field{i, name, fw})
		}
	}
	if len(fields) == 0 {
		return nil
	}
	return func(v reflect.Value) *unsafeString {
		for _, f := range fields {
			if *f.walk == nil {
				continue
			}
			if bad := (*f.walk)(v.Field(f.index)); bad != nil {
				if f.name != "" {
					bad.path = append(bad.path, "."+f.name)
				}
				return bad
			}
		}
		return nil
	}
}

// walkerOf2 checks a value whose type is known only when walking (an interface's).
func walkerOf2(v reflect.Value) *unsafeString { return walkerOf(v.Type())(v) }

// jsonName is the field's name in the document; "" for an embedded struct whose fields are
// inlined. skip: unexported or not encoded.
func jsonName(f reflect.StructField) (name string, skip bool) {
	if !f.IsExported() {
		return "", true
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", true
	}
	name, _, _ = strings.Cut(tag, ",")
	if name == "" && !f.Anonymous {
		name = f.Name
	}
	return name, false
}
