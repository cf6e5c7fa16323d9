package textsafe

import "testing"

func TestVisible(t *testing.T) {
	for _, tc := range []struct{ in, visible, lines string }{
		{"kas-a", "kas-a", "kas-a"},
		{"\x1b]0;pwned\x07\x1b[2J", `\x1b]0;pwned\x07\x1b[2J`, `\x1b]0;pwned\x07\x1b[2J`},
		{"a\nb\tc\rd", `a\x0ab\x09c\x0dd`, "a\nb\tc\\x0dd"},
		{"nul\x00 del\x7f", `nul\x00 del\x7f`, `nul\x00 del\x7f`},
		{"c1\u009b2J", `c1\x9b2J`, `c1\x9b2J`},
		{"rtl\u202eevil\u2066", `rtl\u202eevil\u2066`, `rtl\u202eevil\u2066`},
		{"bad\xffutf8", `bad\xffutf8`, `bad\xffutf8`},
		{"line\u2028para\u2029next\u0085", `line\u2028para\u2029next\x85`, `line\u2028para\u2029next\x85`},
		{"gad\u200dgets\u200b\u2060\ufeff\u00ad", `gad\u200dgets\u200b\u2060\ufeff\u00ad`, `gad\u200dgets\u200b\u2060\ufeff\u00ad`},
		{"tag\U000e0041\U0001d173", `tag\U000e0041\U0001d173`, `tag\U000e0041\U0001d173`},
		{"FAKE\r\nLINE", `FAKE\x0d\x0aLINE`, "FAKE\\x0d\nLINE"},
		{"über 日本 <b>", "über 日本 <b>", "über 日本 <b>"},
	} {
		if got := Visible(tc.in); got != tc.visible {
			t.Errorf("Visible(%q) = %q, want %q", tc.in, got, tc.visible)
		}
		if got := VisibleLines(tc.in); got != tc.lines {
			t.Errorf("VisibleLines(%q) = %q, want %q", tc.in, got, tc.lines)
		}
		if (FirstUnsafe(tc.in, false) < 0) != (tc.in == tc.visible) {
			t.Errorf("FirstUnsafe(%q) disagrees with Visible", tc.in)
		}
	}
}

// TestFirstUnsafeEveryByte: the eight-bytes-at-once path finds every byte the byte-at-a-time
// rule does, at every offset of a word, as bytes and as a string.
func TestFirstUnsafeEveryByte(t *testing.T) {
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 17; pos++ {
			b := []byte("abcdefghijklmnopq")
			b[pos] = byte(c)
			for _, keep := range []bool{false, true} {
				want := -1
				if (c < 0x20 && !(keep && (c == '\n' || c == '\t'))) || c >= 0x7f {
					want = pos
				}
				if got := FirstUnsafe(b, keep); got != want {
					t.Errorf("byte %#x at %d (keep %v): %d, want %d", c, pos, keep, got, want)
				}
				if got := FirstUnsafe(string(b), keep); got != want {
					t.Errorf("string: byte %#x at %d (keep %v): %d, want %d", c, pos, keep, got, want)
				}
			}
		}
	}
}
