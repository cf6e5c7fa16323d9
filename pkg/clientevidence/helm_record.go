package clientevidence

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mvpctl/mvpctl/internal/jsonstr"
)

// A release record is read as it is decompressed, never held whole: its manifest is unquoted
// straight into one buffer, the fields mvpctl reads are kept, every other value (the chart,
// its values, the hooks) is scanned past. A manifest longer than the room it is read into is
// measured, not kept.

// recordScanner reads the JSON of one release record from r.
type recordScanner struct {
	r *bufio.Reader
}

var errRecordSyntax = errors.New("not JSON")

// scanRecord reads a record: the release, its manifest appended to buf[:0] when it is at most
// room bytes long (else nil), and the manifest's length either way.
func scanRecord(r io.Reader, buf []byte, room int64) (rec helmRecord, manifest []byte, size int64, err error) {
	s := recordScanner{r: bufio.NewReaderSize(r, 64<<10)}
	kept := true
	// Keys match as encoding/json matches them: regardless of case.
	is := strings.EqualFold
	err = s.object(func(key string) error {
		switch {
		case is(key, "name"):
			return s.stringInto(&rec.Name)
		case is(key, "namespace"):
			return s.stringInto(&rec.Namespace)
		case is(key, "version"):
			return s.intInto(&rec.Version)
		case is(key, "info"):
			return s.objectOrSkip(func(key string) error {
				if is(key, "status") {
					return s.stringInto(&rec.Info.Status)
				}
				return s.skip()
			})
		case is(key, "manifest"):
			if c, err := s.peek(); err != nil || c != '"' {
				return s.skip()
			}
			manifest, size, err = s.text(buf[:0], room)
			kept = size <= room
			return err
		}
		return s.skip()
	})
	if err != nil {
		return helmRecord{}, nil, 0, err
	}
	if c, err := s.peek(); !errors.Is(err, io.EOF) {
		if err == nil {
			err = fmt.Errorf("%w: %q after the record", errRecordSyntax, c)
		}
		return helmRecord{}, nil, 0, err
	}
	if !kept {
		manifest = nil
	}
	return rec, manifest, size, nil
}

// peek is the next byte that is not white space, not consumed.
func (s *recordScanner) peek() (byte, error) {
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return 0, err
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c, s.r.UnreadByte()
		}
	}
}

// next consumes the next byte that is not white space.
func (s *recordScanner) next() (byte, error) {
	c, err := s.peek()
	if err == nil {
		s.r.ReadByte()
	}
	return c, noEOF(err)
}

func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: %w", errRecordSyntax, io.ErrUnexpectedEOF)
	}
	return err
}

func (s *recordScanner) expect(want byte) error {
	c, err := s.next()
	if err == nil && c != want {
		err = fmt.Errorf("%w: %q where %q belongs", errRecordSyntax, c, want)
	}
	return err
}

// object reads an object, calling member for each key with the scanner before its value,
// which member must read.
func (s *recordScanner) object(member func(key string) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	if c, err := s.peek(); err != nil || c == '}' {
		s.r.ReadByte()
		return noEOF(err)
	}
	for {
		var key string
		if err := s.stringInto(&key); err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := member(key); err != nil {
			return err
		}
		c, err := s.next()
		if err != nil {
			return err
		}
		switch c {
		case '}':
			return nil
		case ',':
		default:
			return fmt.Errorf("%w: %q after a member", errRecordSyntax, c)
		}
	}
}

// objectOrSkip is object when the value is one, else skips it (a null).
func (s *recordScanner) objectOrSkip(member func(key string) error) error {
	if c, err := s.peek(); err != nil || c != '{' {
		return s.skip()
	}
	return s.object(member)
}

// stringInto reads a string (of at most MaxHelmManifest bytes: only the manifest is large)
// into *dst; a null leaves it empty.
func (s *recordScanner) stringInto(dst *string) error {
	if c, err := s.peek(); err == nil && c == 'n' {
		return s.skip()
	}
	b, size, err := s.text(nil, MaxHelmManifest)
	if err == nil && size > MaxHelmManifest {
		err = fmt.Errorf("%w: a string of more than %d MiB", errRecordSyntax, MaxHelmManifest>>20)
	}
	*dst = string(b)
	return err
}

// intInto reads a number into *dst.
func (s *recordScanner) intInto(dst *int) error {
	lit, err := s.literal()
	if err != nil {
		return err
	}
	if string(lit) == "null" {
		return nil
	}
	if *dst, err = strconv.Atoi(string(lit)); err != nil {
		return fmt.Errorf("%w: version %q", errRecordSyntax, lit)
	}
	return nil
}

// literal reads a number, true, false or null.
func (s *recordScanner) literal() ([]byte, error) {
	if _, err := s.peek(); err != nil {
		return nil, noEOF(err)
	}
	var lit []byte
	for {
		c, err := s.r.ReadByte()
		if errors.Is(err, io.EOF) && len(lit) > 0 {
			return lit, nil
		}
		if err != nil {
			return nil, noEOF(err)
		}
		if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			return lit, s.r.UnreadByte()
		}
		if lit = append(lit, c); len(lit) > 64 || !(c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return nil, fmt.Errorf("%w: %q", errRecordSyntax, lit)
		}
	}
}

// skip reads past one value of any kind.
func (s *recordScanner) skip() error {
	c, err := s.peek()
	if err != nil {
		return noEOF(err)
	}
	switch c {
	case '"':
		_, _, err := s.text(nil, 0)
		return err
	case '{':
		return s.object(func(string) error { return s.skip() })
	case '[':
		s.r.ReadByte()
		if c, err := s.peek(); err != nil || c == ']' {
			s.r.ReadByte()
			return noEOF(err)
		}
		for {
			if err := s.skip(); err != nil {
				return err
			}
			c, err := s.next()
			if err != nil {
				return err
			}
			if c == ']' {
				return nil
			}
			if c != ',' {
				return fmt.Errorf("%w: %q in an array", errRecordSyntax, c)
			}
		}
	}
	_, err = s.literal()
	return err
}

// text reads a string, appending what it says to dst while it is at most room bytes long, and
// returns dst and the string's length (past room, dst is not grown further).
func (s *recordScanner) text(dst []byte, room int64) ([]byte, int64, error) {
	if err := s.expect('"'); err != nil {
		return nil, 0, err
	}
	var size int64
	add := func(b []byte) {
		if size += int64(len(b)); size <= room {
			dst = append(dst, b...)
		}
	}
	for {
		if _, err := s.r.Peek(1); err != nil {
			return nil, 0, noEOF(err)
		}
		chunk, _ := s.r.Peek(s.r.Buffered())
		i := plainRun(chunk)
		add(chunk[:i])
		s.r.Discard(i)
		if i == len(chunk) {
			continue
		}
		switch c := chunk[i]; {
		case c >= utf8.RuneSelf:
			s.notUTF8(add)
		case c == '"':
			s.r.Discard(1)
			return dst, size, nil
		case c < 0x20:
			return nil, 0, fmt.Errorf("%w: control character %q in a string", errRecordSyntax, c)
		default: // a backslash
			s.r.Discard(1)
			if err := s.escape(add); err != nil {
				return nil, 0, err
			}
		}
	}
}

// plainRun is how many bytes at the start of b a string holds as they are: UTF-8 but for a
// quote, a backslash or a control character (and a rune b holds only part of).
func plainRun(b []byte) int {
	i := 0
	for i < len(b) {
		if c := b[i]; c < utf8.RuneSelf {
			if c == '"' || c == '\\' || c < 0x20 {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i // not UTF-8, or a rune the buffer holds part of
		}
		i += n
	}
	return i
}

// notUTF8 reads a rune the buffer held only part of, or a byte that is not UTF-8, which is
// read as U+FFFD, as encoding/json reads it.
func (s *recordScanner) notUTF8(add func([]byte)) {
	b, _ := s.r.Peek(utf8.UTFMax)
	if r, n := utf8.DecodeRune(b); r != utf8.RuneError || n > 1 {
		add(b[:n])
		s.r.Discard(n)
		return
	}
	add([]byte(string(utf8.RuneError)))
	s.r.Discard(1)
}

// escape reads an escape after its backslash.
func (s *recordScanner) escape(add func([]byte)) error {
	e, err := s.r.ReadByte()
	if err != nil {
		return noEOF(err)
	}
	if b, ok := jsonstr.Unescape(e); ok {
		add([]byte{b})
		return nil
	}
	if e != 'u' {
		return fmt.Errorf("%w: escape \\%c", errRecordSyntax, e)
	}
	r, err := s.hex4()
	if err != nil {
		return err
	}
	// A surrogate pair is two escapes; a half without the other is U+FFFD and the escape
	// after it read on its own, as encoding/json reads them.
	for utf16.IsSurrogate(r) {
		if next, _ := s.r.Peek(2); string(next) != `\u` {
			r = utf8.RuneError
			break
		}
		s.r.Discard(2)
		r2, err := s.hex4()
		if err != nil {
			return err
		}
		if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
			r = d
			break
		}
		add([]byte(string(utf8.RuneError)))
		r = r2
	}
	add(utf8.AppendRune(nil, r))
	return nil
}

// hex4 reads the four hex digits of \uXXXX.
func (s *recordScanner) hex4() (rune, error) {
	var h [4]byte
	if _, err := io.ReadFull(s.r, h[:]); err != nil {
		return 0, noEOF(err)
	}
	n, err := strconv.ParseUint(string(h[:]), 16, 16)
	if err != nil {
		return 0, fmt.Errorf("%w: escape \\u%s", errRecordSyntax, h[:])
	}
	return rune(n), nil
}
