// Package yamljson converts the YAML that mvpctl writes to JSON quickly, so that a YAML
// snapshot can be decoded on the JSON path (goccy/go-json) instead of going through a full
// YAML parser (sigs.k8s.io/yaml: go-yaml builds a node tree and generic maps, then converts them
// to JSON; 30–40 ms for the README's 200 KB example, most of `routes --snapshot`'s run).
//
// It reads only a subset: block mappings and block sequences (including the "indentless"
// sequences go-yaml writes under a mapping key), one scalar per line, as sigs.k8s.io/yaml.Marshal
// emits them. Convert declines (ok=false) anything it does not read with certainty: flow
// collections other than {} and [], block scalars (| and >), anchors, aliases, tags,
// directives, document markers, tabs, CR, control and non-printable characters, and every
// plain scalar that YAML 1.1 (go-yaml v2) could resolve to something other than a string, except
// null, true, false and plain decimal integers. The caller then uses the full YAML path, so a
// declined document costs a few microseconds and behaves exactly as before. FuzzConvert checks
// that every accepted document means the same as sigs.k8s.io/yaml.YAMLToJSON says it does.
package yamljson

import (
	"bytes"
	"encoding/binary"
	"math"
	"unicode/utf8"
)

// line is the current non-blank, non-comment line: its indentation and where the text after it
// is in the input. Lines are read one at a time as the parser moves on (advance), never kept:
// a snapshot has one line per ~22 bytes, and a slice of them cost ~0.7× the input while the
// input and its JSON were both held.
type line struct {
	indent, start, end int
	// afterSkipped: a blank line or a comment line came just before. Inside a multi-line
	// scalar those are content (a newline, or text), so such a scalar is declined.
	afterSkipped bool
}

type parser struct {
	data []byte
	cur  line
	// rest is where the line after cur starts.
	rest int
	// done: there is no current line, the input has ended — or a line was declined (bad),
	// which ends the parse as if the input had.
	done, bad bool
	out       []byte
}

// text is the text of the current line.
func (p *parser) text() []byte { return p.data[p.cur.start:p.cur.end] }

// Convert returns data as JSON, or ok=false when data is not in the subset described above.
func Convert(data []byte) (out []byte, ok bool) {
	if len(data) > math.MaxInt32 {
		return nil, false
	}
	p := &parser{data: data}
	p.advance()
	if p.done || p.cur.indent != 0 {
		return nil, false
	}
	p.out = make([]byte, 0, len(data))
	if !p.node(0) || !p.done || p.bad {
		return nil, false
	}
	return p.out, true
}

// advance moves to the next line, skipping blank lines and whole-line comments, and declines
// (bad) a byte outside printable ASCII (tabs and CR included), trailing spaces and document
// markers.
func (p *parser) advance() {
	data := p.data
	skipped := false
	for start := p.rest; start < len(data); {
		end := bytes.IndexByte(data[start:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += start
		}
		l := data[start:end]
		start = end + 1
		p.rest = start
		if !printableASCII(l) && !printable(l) {
			p.done, p.bad = true, true
			return
		}
		indent := 0
		for indent < len(l) && l[indent] == ' ' {
			indent++
		}
		text := l[indent:]
		switch {
		case len(text) == 0, text[0] == '#':
			skipped = true
			continue
		case text[len(text)-1] == ' ',
			indent == 0 && len(text) >= 3 && (string(text[:3]) == "---" || string(text[:3]) == "..."):
			p.done, p.bad = true, true
			return
		}
		p.cur = line{indent: indent, start: end - len(text), end: end, afterSkipped: skipped}
		return
	}
	p.done = true
}

// printableASCII reports whether l holds only printable ASCII (0x20–0x7e), eight bytes at a
// time: a word has a byte below 0x20 when subtracting 0x20 from every byte borrows into a byte
// whose top bit was clear, a byte of 0x80 or more when a top bit is set, and 0x7f when XOR with
// 0x7f leaves a zero byte. The tests are exact for "any byte in the word" (what is asked).
func printableASCII(l []byte) bool {
	const ones, highs, spaces, dels = 0x0101010101010101, 0x8080808080808080, 0x2020202020202020, 0x7f7f7f7f7f7f7f7f
	for ; len(l) >= 8; l = l[8:] {
		w := binary.LittleEndian.Uint64(l)
		d := w ^ dels
		if ((w-spaces)&^w|w|(d-ones)&^d)&highs != 0 {
			return false
		}
	}
	for _, c := range l {
		if c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// printable reports whether l holds only printable ASCII and the non-ASCII characters go-yaml
// takes as printable text (printableNonASCII): the slow path for a line printableASCII refused.
func printable(l []byte) bool {
	for i := 0; i < len(l); {
		c := l[i]
		if c >= 0x80 {
			r, size := utf8.DecodeRune(l[i:])
			if !printableNonASCII(r) {
				return false
			}
			i += size
			continue
		}
		if c < 0x20 || c == 0x7f {
			return false
		}
		i++
	}
	return true
}

// printableNonASCII reports whether r is a character go-yaml takes as printable text that is not
// a line break (U+0085, U+2028 and U+2029 are breaks in YAML 1.1) or a byte order mark; an
// invalid UTF-8 sequence decodes as U+FFFD of size 1 and is refused by the caller's check.
func printableNonASCII(r rune) bool {
	switch {
	case r == utf8.RuneError, r == 0x2028, r == 0x2029, r == 0xFEFF:
		return false
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}

// isEntry reports whether text starts a block sequence entry ("- ...").
func isEntry(text []byte) bool {
	return text[0] == '-' && (len(text) == 1 || text[1] == ' ')
}

// node reads the block node whose first line is the current one, at exactly indent.
func (p *parser) node(indent int) bool {
	if isEntry(p.text()) {
		return p.sequence(indent)
	}
	return p.mapping(indent)
}

// next is the indentation of the current line, or -1 at the end.
func (p *parser) next() int {
	if p.done {
		return -1
	}
	return p.cur.indent
}

func (p *parser) sequence(indent int) bool {
	p.out = append(p.out, '[')
	for first := true; p.next() == indent && isEntry(p.text()); first = false {
		t := p.text()
		if len(t) < 3 || t[2] == ' ' || isEntry(t[2:]) {
			return false
		}
		if !first {
			p.out = append(p.out, ',')
		}
		rest := t[2:]
		if _, _, isKey := splitKey(rest); isKey {
			// "- key: value": a mapping whose first entry is on this line, the others two
			// columns further in.
			p.cur = line{indent: indent + 2, start: p.cur.start + 2, end: p.cur.end}
			if !p.mapping(indent + 2) {
				return false
			}
			continue
		}
		if !p.value(rest, indent) {
			return false
		}
	}
	if p.next() > indent {
		return false
	}
	p.out = append(p.out, ']')
	return true
}

func (p *parser) mapping(indent int) bool {
	p.out = append(p.out, '{')
	for first := true; p.next() == indent && !isEntry(p.text()); first = false {
		key, rest, isKey := splitKey(p.text())
		if !isKey {
			return false
		}
		if !first {
			p.out = append(p.out, ',')
		}
		if !p.key(key) {
			return false
		}
		p.out = append(p.out, ':')
		if len(rest) > 0 {
			if rest[0] == ' ' || !p.value(rest, indent) {
				return false
			}
			continue
		}
		p.advance()
		switch n := p.next(); {
		case n > indent:
			if !p.node(n) {
				return false
			}
		case n == indent && isEntry(p.text()):
			if !p.sequence(indent) {
				return false
			}
		default:
			p.out = append(p.out, "null"...)
		}
	}
	if p.next() > indent {
		return false
	}
	p.out = append(p.out, '}')
	return true
}

// maxSimpleKey is the longest key YAML allows without "? " (an implicit key: 1024 characters).
const maxSimpleKey = 1000

// splitKey splits "key: value" or "key:" into the key as written and the value text. A quoted
// key ends at its closing quote; a plain key at the first ':' followed by a space or the end.
func splitKey(text []byte) (key, rest []byte, ok bool) {
	end := -1
	switch text[0] {
	case '"', '\'':
		end = quotedEnd(text)
		if end < 0 || end >= len(text) || text[end] != ':' {
			return nil, nil, false
		}
	default:
		for i := 0; i < len(text); i++ {
			if text[i] == ':' && (i+1 == len(text) || text[i+1] == ' ') {
				end = i
				break
			}
		}
		if end <= 0 {
			return nil, nil, false
		}
	}
	if end > maxSimpleKey {
		return nil, nil, false
	}
	if end+1 == len(text) {
		return text[:end], nil, true
	}
	if text[end+1] != ' ' {
		return nil, nil, false
	}
	return text[:end], text[end+2:], true
}

// quotedEnd returns the index just past the quoted string text starts with, or -1.
func quotedEnd(text []byte) int {
	q := text[0]
	for i := 1; i < len(text); i++ {
		switch {
		case q == '"' && text[i] == '\\':
			i++
		case text[i] == q && q == '\'' && i+1 < len(text) && text[i+1] == '\'':
			i++
		case text[i] == q:
			return i + 1
		}
	}
	return -1
}

// key writes a mapping key as a JSON string: quoted, or plain and certainly a string.
func (p *parser) key(k []byte) bool {
	switch k[0] {
	case '"':
		return p.doubleQuoted(k)
	case '\'':
		return p.singleQuoted(k)
	}
	if !plainString(k) {
		return false
	}
	p.str(k)
	return true
}
