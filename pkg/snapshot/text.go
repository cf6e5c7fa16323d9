package snapshot

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
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

// checkText walks every string of v (a snapshot, by reflection: the check cannot miss a field
// added later) and returns an error naming the first one holding an unsafeRune, by its path
// in the document (servers[0].peerProxy.evidence[1]).
func checkText(v any) error {
	bad := findUnsafe(reflect.ValueOf(v))
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

func findUnsafe(v reflect.Value) *unsafeString {
	if !hasStrings(v.Type()) {
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		if r, bad := unsafeRune(v.String()); bad {
			return &unsafeString{s: v.String(), r: r}
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return findUnsafe(v.Elem())
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, skip := jsonName(f)
			if skip {
				continue
			}
			if bad := findUnsafe(v.Field(i)); bad != nil {
				if name != "" {
					bad.path = append(bad.path, "."+name)
				}
				return bad
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if bad := findUnsafe(v.Index(i)); bad != nil {
				bad.path = append(bad.path, fmt.Sprintf("[%d]", i))
				return bad
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if bad := findUnsafe(it.Key()); bad != nil {
				bad.path = append(bad.path, " (a key)")
				return bad
			}
			if bad := findUnsafe(it.Value()); bad != nil {
				bad.path = append(bad.path, fmt.Sprintf("[%q]", it.Key()))
				return bad
			}
		}
	}
	return nil
}

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

var stringTypes sync.Map // reflect.Type → bool

// hasStrings reports whether a value of type t can hold a string (through exported fields),
// so that the walk skips []byte, timestamps and numbers without looking at each element.
func hasStrings(t reflect.Type) bool {
	if b, ok := stringTypes.Load(t); ok {
		return b.(bool)
	}
	stringTypes.Store(t, true) // a recursive type: assume yes while it is being looked at
	has := false
	switch t.Kind() {
	case reflect.String, reflect.Interface:
		has = true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		has = hasStrings(t.Elem())
	case reflect.Map:
		has = hasStrings(t.Key()) || hasStrings(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField() && !has; i++ {
			if _, skip := jsonName(t.Field(i)); !skip {
				has = hasStrings(t.Field(i).Type)
			}
		}
	}
	stringTypes.Store(t, has)
	return has
}
