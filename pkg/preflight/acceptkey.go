package preflight

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// How a subject is written in an accept rule (a key): as it is, except for the characters
// that mean something in a rule — * and ? (globs), # (a comment), \ (an escape) — written
// \*, \?, \#, \\, and those a rule cannot hold or a reader cannot see — spaces, control
// characters, bytes that are not UTF-8 — written \xHH (\u2028 for a character beyond).
// A key written for a finding therefore matches that subject alone: the rule written for a
// server named k* does not accept the finding of a server kz, and k#1 reads back as k#1.
// Globs are only where a person wrote them.

// EscapeSubject writes subject as an accept rule holds it.
func EscapeSubject(subject string) string {
	var b strings.Builder
	for i := 0; i < len(subject); {
		r, n := utf8.DecodeRuneInString(subject[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, subject[i])
		case r == '*' || r == '?' || r == '#' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r <= ' ' || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r) || unicode.IsSpace(r) || !unicode.IsPrint(r):
			if r <= 0xff {
				fmt.Fprintf(&b, `\x%02x`, r) // a C1 control; decoded as U+0080–U+009F
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(subject[i : i+n])
		}
		i += n
	}
	return b.String()
}

// subjectGlob is a written subject compiled: literal text, and the globs a person wrote.
// It matches bytes, not runes, so that a subject that is not UTF-8 is matched exactly (Go's
// regexp reads such bytes as U+FFFD).
type subjectGlob struct{ parts []globPart }

type globPart struct {
	lit      string
	any, one bool // * or ?
}

// subjectPattern compiles a written subject: * and ? unescaped are globs, the escapes of
// EscapeSubject stand for their character.
func subjectPattern(written string) (*subjectGlob, error) {
	g := &subjectGlob{}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			g.parts = append(g.parts, globPart{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(written); i++ {
		switch c := written[i]; c {
		case '*', '?':
			flush()
			g.parts = append(g.parts, globPart{any: c == '*', one: c == '?'})
		case '\\':
			text, n, err := unescapeAt(written[i:])
			if err != nil {
				return nil, err
			}
			lit.WriteString(text)
			i += n - 1
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return g, nil
}

// MatchString reports whether s is the subject, or one of the subjects, g stands for.
func (g *subjectGlob) MatchString(s string) bool { return matchParts(g.parts, s) }

// matchParts is the classic wildcard match, in time linear in len(parts)·len(s): on a
// mismatch, only the last * takes one more byte.
func matchParts(parts []globPart, s string) bool {
	pi, si := 0, 0
	star, starS := -1, 0
	for si < len(s) || pi < len(parts) {
		if pi < len(parts) {
			p := parts[pi]
			switch {
			case p.any:
				star, starS = pi, si
				pi++
				continue
			case p.one && si < len(s):
				_, n := utf8.DecodeRuneInString(s[si:])
				pi, si = pi+1, si+n
				continue
			case !p.one && strings.HasPrefix(s[si:], p.lit):
				pi, si = pi+1, si+len(p.lit)
				continue
			}
		}
		if star < 0 || starS >= len(s) {
			return false
		}
		starS++
		pi, si = star+1, starS
	}
	return true
}

// unescapeAt reads the escape at the start of s (s[0] is '\'): the text it stands for and
// its length.
func unescapeAt(s string) (lit string, n int, err error) {
	if len(s) < 2 {
		return "", 0, fmt.Errorf(`a lone \ at the end: write \\ for a backslash`)
	}
	switch s[1] {
	case '*', '?', '#', '\\':
		return s[1:2], 2, nil
	case 'x':
		if len(s) >= 4 {
			if v, err := strconv.ParseUint(s[2:4], 16, 8); err == nil {
				if v >= 0x80 && v <= 0x9f {
					return string(rune(v)), 4, nil // EscapeSubject writes a C1 control so
				}
				return string([]byte{byte(v)}), 4, nil
			}
		}
	case 'u':
		if len(s) >= 6 {
			if v, err := strconv.ParseUint(s[2:6], 16, 32); err == nil {
				return string(rune(v)), 6, nil
			}
		}
	}
	return "", 0, fmt.Errorf(`unknown escape %q: a subject holds \*, \?, \#, \\, \xHH or \uHHHH`, clipEscape(s))
}

func clipEscape(s string) string {
	if len(s) > 6 {
		return s[:6]
	}
	return s
}

// cutComment splits an accept file's line at its first # that is not escaped (\#).
func cutComment(line string) (rule, comment string) {
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '#':
			return line[:i], line[i+1:]
		}
	}
	return line, ""
}

// checkRuleText refuses a rule that holds a control character: a NUL byte or an escape
// sequence in a rule is not something a person wrote (and cannot be seen in a review).
func checkRuleText(s string) error {
	for i, r := range s {
		if r < ' ' && r != '\t' || r == 0x7f || (r >= 0x80 && r <= 0x9f) || (r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD")) {
			return fmt.Errorf("holds the control character %s: a rule is text; write a subject's control characters as \\xHH", strconv.QuoteRune(r))
		}
	}
	return nil
}
