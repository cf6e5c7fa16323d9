// Package textsafe is the one rule of which characters of text from outside mvpctl (a
// cluster's names and messages, a log, a file, a flag) act on a terminal rather than print,
// and how they are written instead: as Go escapes (\x1b, \u202e). pkg/output applies it to
// everything printed; pkg/snapshot to what discovery records; internal/apiclient to errors.
package textsafe

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Visible returns s with every character that acts on a terminal rather than printing
// written as a Go escape: C0 controls (newline and tab too), DEL, C1 controls (U+0085, the
// next-line character, among them), the line and paragraph separators (U+2028, U+2029), every
// format character (Unicode category Cf: the text-direction controls that reorder what is
// displayed, U+202A–U+202E and U+2066–U+2069, and the invisible ones that join or split what
// is read, U+200B–U+200D, U+2060, U+FEFF, the soft hyphen) and bytes that are not UTF-8. A
// value printed on one line goes through it: whatever it holds, it stays one line.
func Visible(s string) string { return escapeControls(s, false) }

// VisibleLines is Visible with newlines and tabs kept: for text that is laid out in lines
// by its writer (a JUnit failure's detail, a stream the guard passes on). A value placed in
// such text goes through Visible first, where it is placed: VisibleLines cannot tell the
// writer's newlines from a value's.
func VisibleLines(s string) string { return escapeControls(s, true) }

func escapeControls(s string, keepLayout bool) string {
	i := FirstUnsafe(s, keepLayout)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if unsafeASCII(c, keepLayout) {
				fmt.Fprintf(&b, `\x%02x`, c)
			} else {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, c)
		case r <= 0x9f:
			fmt.Fprintf(&b, `\x%02x`, r) // a C1 control
		case r > 0xffff && isInvisible(r):
			fmt.Fprintf(&b, `\U%08x`, r)
		case isInvisible(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// FirstUnsafe is the index of the first character Visible (keepLayout: VisibleLines)
// rewrites, or -1. It takes bytes too, so that a writer need not copy what it is given.
func FirstUnsafe[T string | []byte](s T, keepLayout bool) int {
	for i := 0; i < len(s); {
		if i+8 <= len(s) && plainWord(s, i) {
			i += 8 // eight printable ASCII bytes at once: most of what mvpctl prints
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if unsafeASCII(c, keepLayout) {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		if (r == utf8.RuneError && n == 1) || r <= 0x9f || isInvisible(r) {
			return i
		}
		i += n
	}
	return -1
}

// plainWord reports whether the eight bytes of s at i are printable ASCII (0x20–0x7e). Each
// mask has a byte's high bit set exactly when that byte is of its kind; no carry crosses a
// byte.
func plainWord[T string | []byte](s T, i int) bool {
	const ones, highs, lows = 0x0101010101010101, 0x8080808080808080, 0x7f7f7f7f7f7f7f7f
	w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
	control := ^(w&lows + 0x60*ones) & highs // low seven bits below 0x20
	del := ^((w^0x7f*ones)&lows + lows | (w ^ 0x7f*ones)) & highs
	return w&highs|control|del == 0
}

func unsafeASCII(c byte, keepLayout bool) bool {
	if keepLayout && (c == '\n' || c == '\t') {
		return false
	}
	return c < ' ' || c == 0x7f
}

// isInvisible reports whether r, above the C1 controls, acts on the layout rather than
// printing: a line or paragraph separator, or a format character (category Cf).
func isInvisible(r rune) bool {
	return r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Cf, r)
}
