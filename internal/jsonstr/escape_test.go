package jsonstr

import (
	"encoding/json"
	"testing"
)

// TestUnescape: for every byte after a backslash, Unescape agrees with encoding/json (the
// one-byte escapes decode to what it decodes them to; every other byte but 'u' is an error).
func TestUnescape(t *testing.T) {
	for e := range 256 {
		var s string
		err := json.Unmarshal([]byte{'"', '\\', byte(e), '"'}, &s)
		b, ok := Unescape(byte(e))
		switch {
		case e == 'u':
			if ok {
				t.Errorf("Unescape('u') = %q, true; want false (the caller decodes \\uXXXX)", b)
			}
		case ok != (err == nil):
			t.Errorf("Unescape(%q) ok = %t; encoding/json: %v", byte(e), ok, err)
		case ok && s != string([]byte{b}):
			t.Errorf("Unescape(%q) = %q; encoding/json: %q", byte(e), b, s)
		}
	}
}
