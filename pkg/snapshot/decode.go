package snapshot

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"

	gojson "github.com/goccy/go-json"
	"sigs.k8s.io/yaml"

	"github.com/mvpctl/mvpctl/internal/yamljson"
)

// This file turns a document's bytes into a Snapshot: gzip (read.go), JSON (the generated
// decoder or goccy/go-json, strict) or
// YAML (internal/yamljson or sigs.k8s.io/yaml, strict), then convert.go's conversion and validate.go's checks.

// Decode parses YAML or JSON strictly (unknown fields are errors, so a typo is not silently
// dropped) and validates the result. gzip-compressed input is recognised by its magic bytes
// and decompressed up to MaxSize. The input must hold exactly one document: a second YAML
// document or data after a JSON object is an error, not silently ignored.
func Decode(data []byte) (*Snapshot, error) {
	return decodeInput(&input{data: data})
}

// input is the bytes of a snapshot being decoded, and how to read them again.
type input struct {
	data []byte
	// reread, when not nil, reads the same bytes again (a regular file: LoadFile). YAML's bytes
	// are then let go once converted to JSON, so that the YAML, its JSON and the snapshot are
	// not all held at once; should the JSON path not take the result, the file is read again
	// and decoded from the start, as YAML, for the error's wording.
	reread func() ([]byte, error)
	// settle, when not nil, waits until reread no longer needs data (keptInput).
	settle func()
}

// collectAfter is the size of a YAML snapshot's JSON from which decoding it collects garbage
// between its stages (decode): peak memory then follows the largest stage, not the sum of
// them (docs/performance.md: 5.0× a 100 MB YAML snapshot without, 3× with).
const collectAfter = 16 << 20

// errReread: the bytes were let go, and are needed again.
var errReread = errors.New("snapshot bytes needed again")

func decodeInput(in *input) (*Snapshot, error) {
	s, err := decodeOnce(in)
	if errors.Is(err, errReread) {
		data, err := in.reread()
		if err != nil {
			return nil, err
		}
		return Decode(data)
	}
	return s, err
}

func decodeOnce(in *input) (*Snapshot, error) {
	if int64(len(in.data)) > maxSize {
		return nil, errTooLarge(false)
	}
	if len(in.data) > 2 && in.data[0] == 0x1f && in.data[1] == 0x8b {
		data, err := gunzip(in.data)
		if err != nil {
			return nil, err
		}
		in.data = data
	}
	trimmed := bytes.TrimSpace(in.data)
	if len(trimmed) == 0 {
		return nil, errors.New("file is empty")
	}
	if trimmed[0] == '<' {
		return nil, errors.New("not a YAML or JSON document: it starts with '<' (an HTML or XML page?)")
	}
	var s Snapshot
	plainText, err := decode(in, trimmed[0] == '{', &s)
	if err != nil {
		return nil, err
	}
	derived, err := s.convert()
	if err != nil {
		return nil, err
	}
	s.deriveEvidenceKinds()
	// Bytes let go (in.data nil) are not taken as plain: validation walks the strings.
	if err := s.validate(plainText || (in.data != nil && plainInput(in.data))); err != nil {
		return nil, err
	}
	if err := s.checkAgreements(derived); err != nil {
		return nil, err
	}
	return &s, nil
}

// decode fills s from data. JSON (isJSON: the first non-space byte is '{') is decoded directly
// by the generated decoder, or, for whatever it declines, by goccy/go-json (encoding/json's
// behaviour and errors); a JSON syntax error falls back to the YAML path (a YAML flow mapping
// also starts with '{'), whose messages then say what is wrong.
//
// YAML as mvpctl writes it is first converted to JSON by internal/yamljson (a block-style
// subset, 10–20× faster than sigs.k8s.io/yaml) and decoded on the JSON path. Whatever the
// subset declines, and whatever the JSON path then rejects, goes through sigs.k8s.io/yaml, so
// that errors read as YAML errors and everything YAML allows still loads. docs/architecture.md
// says why each of these is kept.
//
// plainText reports that the generated decoder took the input and found every string it decoded
// printable ASCII, escaped or not (fastDecode): validation then skips its walk over every string.
func decode(in *input, isJSON bool, s *Snapshot) (plainText bool, err error) {
	if isJSON {
		err, syntax, plainText := decodeJSON(in.data, s)
		if !syntax {
			return plainText, err
		}
		*s = Snapshot{}
	} else if j, ok := yamljson.Convert(in.data); ok {
		large := len(j) >= collectAfter
		if in.reread != nil {
			if in.settle != nil {
				in.settle()
			}
			in.data = nil
			if large {
				// Collect now, while the YAML is the only garbage: otherwise the collector's
				// goal, set while the YAML and its JSON were both live, lets the heap grow to
				// twice that before it looks again, and the YAML's memory is not reused for
				// the snapshot.
				runtime.GC()
			}
		}
		err, _, plainText := decodeJSON(j, s)
		if err == nil {
			if large {
				j = nil
				runtime.GC() // the same for the JSON, before what the command builds next
			}
			return plainText, nil
		}
		if errors.Is(err, errTooManyRequestCounts) {
			return false, err
		}
		*s = Snapshot{}
		if in.data == nil {
			return false, errReread
		}
	}
	data := in.data
	if line, ok := secondDocument(data); ok {
		return false, fmt.Errorf("more than one document (a second one starts at line %d)", line)
	}
	if err := yaml.UnmarshalStrict(data, s); err != nil {
		return false, decodeError(err)
	}
	return false, nil
}

// decodeJSON decodes one JSON object strictly: unknown fields, duplicate keys and data after
// the object are errors. syntax reports that data is not JSON at all.
//
// The generated decoder (fastdecode.go) goes first: it decodes what mvpctl writes without
// reflection and in one pass, duplicate keys included. Whatever it declines — anything unusual,
// every error — is decoded by goccy/go-json and the duplicate-key pass, which word the error.
func decodeJSON(data []byte, s *Snapshot) (err error, syntax, plainText bool) {
	ok, plainText, refused := fastDecode(data, s)
	if ok {
		return nil, false, plainText
	}
	if refused != nil {
		return refused, false, false
	}
	*s = Snapshot{}
	err, syntax = decodeJSONReference(data, s)
	return err, syntax, false
}

// decodeJSONReference is decodeJSON without the generated decoder: goccy/go-json and the
// duplicate-key pass. The generated decoder's tests compare with it.
func decodeJSONReference(data []byte, s *Snapshot) (err error, syntax bool) {
	dec := gojson.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err = dec.Decode(s)
	var syn *gojson.SyntaxError
	switch {
	case err == nil:
		end := int(dec.InputOffset())
		if err := duplicateKey(data[:end]); err != nil {
			return err, false
		}
		return trailing(data, end), false
	case errors.As(err, &syn), errors.Is(err, io.ErrUnexpectedEOF):
		return err, true
	default:
		return decodeError(err), false
	}
}

// duplicateKey returns an error for the first object of data (valid JSON) that holds one key
// twice. encoding/json keeps the last value silently; the YAML path, which JSON went through
// before, rejects it, and so does this. Keys are compared as written (escapes not undone).
func duplicateKey(data []byte) error {
	var keys [][]byte // the keys of every open object, outermost first
	var starts []int  // per open object or array: where its keys start in keys; -1 for an array
	expectKey := false
	for i := 0; i < len(data); i++ {
		if !jsonSpecial[data[i]] {
			// White space, ':', numbers, literals. Indentation is most of an indented file's
			// bytes outside strings: skip it eight spaces at a time.
			for i+9 <= len(data) && binary.LittleEndian.Uint64(data[i+1:]) == 0x2020202020202020 {
				i += 8
			}
			continue
		}
		switch data[i] {
		case '{':
			starts = append(starts, len(keys))
			expectKey = true
		case '[':
			starts = append(starts, -1)
			expectKey = false
		case '}', ']':
			if n := len(starts) - 1; n >= 0 {
				if starts[n] >= 0 {
					keys = keys[:starts[n]]
				}
				starts = starts[:n]
			}
			expectKey = false
		case ',':
			expectKey = len(starts) > 0 && starts[len(starts)-1] >= 0
		case '"':
			end := stringEnd(data, i+1)
			if expectKey {
				key := data[i+1 : end]
				for _, k := range keys[starts[len(starts)-1]:] {
					if bytes.Equal(k, key) {
						return fmt.Errorf("cannot parse: line %d: key %q appears twice in one object", 1+bytes.Count(data[:i], []byte{'\n'}), key)
					}
				}
				keys = append(keys, key)
				expectKey = false
			}
			i = end
		}
	}
	return nil
}

var jsonSpecial = [256]bool{'{': true, '}': true, '[': true, ']': true, ',': true, '"': true}

// stringEnd returns the index of the quote closing the JSON string whose contents start at i.
// (Strings in a snapshot are short: a loop beats bytes.IndexByte's call per string.)
func stringEnd(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case '"':
			return i
		case '\\':
			i += 2
		default:
			i++
		}
	}
	return len(data)
}

// trailing checks that nothing but white space follows the JSON object that ends at off.
func trailing(data []byte, off int) error {
	rest := data[off:]
	i := len(rest) - len(bytes.TrimLeft(rest, " \t\r\n"))
	if i == len(rest) {
		return nil
	}
	line := 1 + bytes.Count(data[:off+i], []byte{'\n'})
	if r := rest[i:]; r[0] == '{' || bytes.HasPrefix(r, []byte("---")) {
		return fmt.Errorf("more than one document (a second one starts at line %d)", line)
	}
	return fmt.Errorf("trailing data after the snapshot (line %d)", line)
}

// secondDocument finds a second YAML document in data: content after a "---" or "..." marker
// line when content came before it. Document markers are recognised at the start of a line
// only, which YAML guarantees: no scalar, quoted or block, may hold one there. Comments and
// blank lines are not content, so a leading "---" or a trailing "---" with nothing after it is
// still one document. It returns the 1-based line where the second document starts.
func secondDocument(data []byte) (line int, found bool) {
	if !bytes.Contains(data, []byte("\n---")) && !bytes.Contains(data, []byte("\n...")) {
		return 0, false // the common case: no marker after the first line
	}
	content := false // the current document has content
	docs := 0        // documents with content before the current one
	markerLine := 0  // where the current document started
	for n, rest := 1, data; len(rest) > 0; n++ {
		l := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			l, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		switch {
		case isMarker(l, "---"):
			if content {
				docs++
			}
			content, markerLine = isContent(l[3:]), n // "--- text": the text is the new document's
		case isMarker(l, "..."):
			if content {
				docs++
			}
			content, markerLine = false, 0
		case isContent(l):
			content = true
			if markerLine == 0 {
				markerLine = n
			}
		}
		if content && docs > 0 {
			return markerLine, true
		}
	}
	return 0, false
}

func isMarker(l []byte, m string) bool {
	return bytes.HasPrefix(l, []byte(m)) && (len(l) == 3 || l[3] == ' ' || l[3] == '\t' || l[3] == '\r')
}

// isContent reports whether a line holds more than white space and a comment.
func isContent(l []byte) bool {
	l = bytes.TrimLeft(l, " \t\r")
	return len(l) > 0 && l[0] != '#'
}

// notAnObject reports whether err says the whole document is a string or a list: a type
// error of goccy/go-json or of encoding/json (which sigs.k8s.io/yaml wraps) about the top-level
// value, not a field.
func notAnObject(err error) bool {
	var (
		goccy *gojson.UnmarshalTypeError
		std   *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &goccy):
		return goccy.Struct == "" && goccy.Field == "" && (goccy.Value == "string" || goccy.Value == "array")
	case errors.As(err, &std):
		return std.Struct == "" && std.Field == "" && (std.Value == "string" || std.Value == "array")
	}
	return false
}

// decodeError turns parser messages into one line; a truncated document is named as such.
func decodeError(err error) error {
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	// sigs.k8s.io/yaml stacks its stages' prefixes; the last part is the one that helps.
	for _, noise := range []string{"error converting YAML to JSON: ", "error unmarshaling JSON: ", "while decoding JSON: ", "json: "} {
		msg = strings.ReplaceAll(msg, noise, "")
	}
	if notAnObject(err) {
		return errors.New("not a snapshot: the document is not a YAML or JSON object")
	}
	// A cut document has no error type of its own in these parsers (go-yaml's are plain
	// strings): their words are all there is.
	for _, hint := range []string{"unexpected end of JSON input", "did not find expected", "found unexpected end of stream", "could not find expected"} {
		if strings.Contains(msg, hint) {
			return fmt.Errorf("not a complete document (truncated?): %s", msg)
		}
	}
	return fmt.Errorf("cannot parse: %s", msg)
}
