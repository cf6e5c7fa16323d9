package snapshot

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	gojson "github.com/goccy/go-json"
	"sigs.k8s.io/yaml"

	"github.com/mvpctl/mvpctl/internal/parallel"
)

// MaxSize bounds a snapshot's size once decompressed (and a plain snapshot's size): 512 MiB.
//
// Real snapshots are far under it. The benchmarks' largest — three servers serving 100,000
// group/version/resources between them, with their recorded /apis documents — is 165 MB of
// indented JSON (86 MB of YAML), where real control planes serve hundreds of GVRs, CRD-heavy
// ones a few thousand; the limit leaves three times that. It keeps a hostile or mistaken input
// — a 4 MB gzip that expands to 4 GiB — from taking gigabytes of memory and minutes before it
// fails: reading stops at MaxSize+1 bytes, about half a second of gunzip. (Decoding takes
// about 6× the input in memory for JSON, 30× for YAML: docs/performance.md.)
const MaxSize = 512 << 20

// maxSize is MaxSize; tests lower it.
var maxSize int64 = MaxSize

// LoadFile reads and validates a snapshot file (YAML or JSON, optionally gzip). Errors name the
// file and, where there is one, the offending field.
func LoadFile(path string) (*Snapshot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", path, unwrapPathError(err))
	}
	defer f.Close()
	return load(f, path)
}

// Load reads and validates a snapshot from r; name is used in errors ("-" for stdin). At most
// MaxSize bytes are read.
func Load(r io.Reader, name string) (*Snapshot, error) {
	return load(r, name)
}

func load(r io.Reader, name string) (*Snapshot, error) {
	data, err := readLimited(r, false)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", name, unwrapPathError(err))
	}
	s, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", name, err)
	}
	return s, nil
}

// TooLargeError is returned for input larger than MaxSize.
type TooLargeError struct {
	Limit int64
	// Decompressed: the input is gzip, and too large once decompressed.
	Decompressed bool
}

func (e *TooLargeError) Error() string {
	if e.Decompressed {
		return fmt.Sprintf("larger than %s once decompressed — not a snapshot mvpctl wrote? (a decompression bomb?)", sizeString(e.Limit))
	}
	return fmt.Sprintf("larger than %s — not a snapshot mvpctl wrote?", sizeString(e.Limit))
}

func errTooLarge(decompressed bool) error {
	return &TooLargeError{Limit: maxSize, Decompressed: decompressed}
}

// readLimited reads all of r but at most maxSize bytes; more is a *TooLargeError. A regular
// file's size is checked before reading. Otherwise the input is read in chunks, joined once at
// the end: an input that turns out too large (a decompression bomb) costs at most maxSize bytes
// of memory, not the 2–3× that growing one buffer by copying would.
func readLimited(r io.Reader, decompressed bool) ([]byte, error) {
	lr := io.LimitReader(r, maxSize+1)
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			if fi.Size() > maxSize {
				return nil, errTooLarge(decompressed)
			}
			// One read into a buffer of the file's size (+1 to see EOF). Should the file grow
			// meanwhile, the chunks below read the rest, still up to the limit.
			buf, eof, err := fill(lr, make([]byte, fi.Size()+1))
			if err != nil || eof {
				return buf, err
			}
			return readChunks(lr, [][]byte{buf}, int64(len(buf)), decompressed)
		}
	}
	return readChunks(lr, nil, 0, decompressed)
}

// readChunks reads the rest of lr (limited to maxSize+1) after chunks, which hold total bytes.
func readChunks(lr io.Reader, chunks [][]byte, total int64, decompressed bool) ([]byte, error) {
	for size, eof := 64<<10, false; !eof; size = min(2*size, 8<<20) {
		if total > maxSize {
			return nil, errTooLarge(decompressed)
		}
		var chunk []byte
		var err error
		if chunk, eof, err = fill(lr, make([]byte, size)); err != nil {
			return nil, err
		}
		chunks = append(chunks, chunk)
		total += int64(len(chunk))
	}
	if total > maxSize {
		return nil, errTooLarge(decompressed)
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	data := make([]byte, 0, total)
	for _, c := range chunks {
		data = append(data, c...)
	}
	return data, nil
}

// fill reads r into buf until buf is full or r ends (eof). Errors other than io.EOF are
// returned: io.ErrUnexpectedEOF from a truncated gzip stream among them.
func fill(r io.Reader, buf []byte) (_ []byte, eof bool, err error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err == io.EOF {
			return buf[:n], true, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
	return buf, false, nil
}

// sizeString formats a byte count the way the limit is documented: "512 MiB".
func sizeString(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Decode parses YAML or JSON strictly (unknown fields are errors, so a typo is not silently
// dropped) and validates the result. gzip-compressed input is recognised by its magic bytes
// and decompressed up to MaxSize. The input must hold exactly one document: a second YAML
// document or data after a JSON object is an error, not silently ignored.
func Decode(data []byte) (*Snapshot, error) {
	if int64(len(data)) > maxSize {
		return nil, errTooLarge(false)
	}
	if len(data) > 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("bad gzip: %w", err)
		}
		if data, err = readLimited(zr, true); err != nil {
			var tooLarge *TooLargeError
			if errors.As(err, &tooLarge) {
				return nil, err
			}
			return nil, fmt.Errorf("bad gzip (truncated?): %w", err)
		}
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, errors.New("file is empty")
	}
	if trimmed[0] == '<' {
		return nil, errors.New("not a YAML or JSON document: it starts with '<' (an HTML or XML page?)")
	}
	var s Snapshot
	if err := decode(data, trimmed[0] == '{', &s); err != nil {
		return nil, err
	}
	derived, err := s.convert()
	if err != nil {
		return nil, err
	}
	if err := s.validate(plainInput(data)); err != nil {
		return nil, err
	}
	if err := s.checkAgreements(derived); err != nil {
		return nil, err
	}
	return &s, nil
}

// decode fills s from data. JSON (isJSON: the first non-space byte is '{') is decoded by
// goccy/go-json (encoding/json's behaviour and errors, several times faster: docs/performance.md);
// a JSON syntax error falls back to the YAML path (a YAML flow mapping also starts with '{'),
// whose messages then say what is wrong. YAML goes through sigs.k8s.io/yaml.
func decode(data []byte, isJSON bool, s *Snapshot) error {
	if isJSON {
		err, syntax := decodeJSON(data, s)
		if !syntax {
			return err
		}
		*s = Snapshot{}
	}
	if line, ok := secondDocument(data); ok {
		return fmt.Errorf("more than one document (a second one starts at line %d)", line)
	}
	if err := yaml.UnmarshalStrict(data, s); err != nil {
		return decodeError(err)
	}
	return nil
}

// decodeJSON decodes one JSON object strictly: unknown fields, duplicate keys and data after
// the object are errors. syntax reports that data is not JSON at all. A large snapshot's
// servers are decoded on every CPU (decodeInParallel); anything unusual there, and every
// error, is decoded again in one piece, which words the error.
func decodeJSON(data []byte, s *Snapshot) (err error, syntax bool) {
	if decodeInParallel(data, s) {
		return nil, false
	}
	*s = Snapshot{}
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
func duplicateKey(data []byte) error { return scanKeys(data, nil) }

// scanKeys is duplicateKey; with spans, it also records where the top-level "servers" array
// and each of its elements are (for decodeInParallel), in the same pass.
func scanKeys(data []byte, spans *serverSpans) error {
	var keys [][]byte // the keys of every open object, outermost first
	var starts []int  // per open object or array: where its keys start in keys; -1 for an array
	expectKey := false
	topKeyServers := false // the last key read in the top-level object is "servers"
	inServers := false     // inside the top-level "servers" array
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
			if inServers && len(starts) == 3 {
				spans.elems = append(spans.elems, [2]int{i, -1})
			}
		case '[':
			starts = append(starts, -1)
			expectKey = false
			if spans != nil && topKeyServers && len(starts) == 2 && spans.array[1] == 0 {
				spans.array[0], inServers = i, true
			}
		case '}', ']':
			if inServers {
				switch len(starts) {
				case 3:
					spans.elems[len(spans.elems)-1][1] = i + 1
				case 2:
					spans.array[1], inServers = i+1, false
				}
			}
			if n := len(starts) - 1; n >= 0 {
				if starts[n] >= 0 {
					keys = keys[:starts[n]]
				}
				starts = starts[:n]
			}
			expectKey = false
		case ',':
			expectKey = len(starts) > 0 && starts[len(starts)-1] >= 0
			if inServers && len(starts) == 2 {
				spans.commas++
			}
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
				if len(starts) == 1 {
					topKeyServers = string(key) == "servers"
				}
			} else if inServers && len(starts) == 2 {
				spans.commas = -1 << 30 // a string element: not a server; decode in one piece
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

// decodeError turns parser messages into one line; a truncated document is named as such.
func decodeError(err error) error {
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	// sigs.k8s.io/yaml stacks its stages' prefixes; the last part is the one that helps.
	for _, noise := range []string{"error converting YAML to JSON: ", "error unmarshaling JSON: ", "while decoding JSON: ", "json: "} {
		msg = strings.ReplaceAll(msg, noise, "")
	}
	if strings.HasPrefix(msg, "cannot unmarshal string into Go value") || strings.HasPrefix(msg, "cannot unmarshal array into Go value") {
		return errors.New("not a snapshot: the document is not a YAML or JSON object")
	}
	for _, hint := range []string{"unexpected end of JSON input", "did not find expected", "found unexpected end of stream", "could not find expected"} {
		if strings.Contains(msg, hint) {
			return fmt.Errorf("not a complete document (truncated?): %s", msg)
		}
	}
	return fmt.Errorf("cannot parse: %s", msg)
}

// Validate checks the invariants the router relies on. The first problem found is returned,
// naming its field path.
func (s *Snapshot) Validate() error { return s.validate(false) }

// validate is Validate; textSafe says every string is known to be safe text (Decode learnt it
// from plainInput), so the walk over every string (checkText) is skipped.
func (s *Snapshot) validate(textSafe bool) error {
	if s.APIVersion != APIVersion {
		if s.APIVersion == APIVersionV1Alpha1 {
			// Decode converts files; an in-memory snapshot is always the current version.
			return fmt.Errorf("apiVersion: got %q, want %q (Decode converts %s files)", s.APIVersion, APIVersion, APIVersionV1Alpha1)
		}
		return fmt.Errorf("apiVersion: got %q, want %q (or %s, converted on read)", s.APIVersion, APIVersion, APIVersionV1Alpha1)
	}
	if s.Kind != Kind {
		return fmt.Errorf("kind: got %q, want %q", s.Kind, Kind)
	}
	if len(s.Servers) == 0 {
		return errors.New("servers: no servers listed")
	}
	// The checks of each server's lists, documents and strings are the long ones (a CRD-heavy
	// snapshot lists tens of thousands of resources per server): done side by side first; the
	// loop below reports the first error in the order the checks have always run.
	contents := make([]error, len(s.Servers))
	badText := make([]bool, len(s.Servers))
	parallel.Each(len(s.Servers), func(i int) {
		srv := &s.Servers[i]
		contents[i] = srv.validateContents(fmt.Sprintf("servers[%d] (%s)", i, srv.Name))
		badText[i] = !textSafe && checkText(srv) != nil
	})
	names := map[string]int{}
	ids := map[string]int{}
	for i := range s.Servers {
		srv := &s.Servers[i]
		field := fmt.Sprintf("servers[%d]", i)
		if srv.Name == "" {
			return fmt.Errorf("%s.name: must be set", field)
		}
		if err := checkServerName(srv.Name, field+".name"); err != nil {
			return err
		}
		if j, dup := names[srv.Name]; dup {
			return fmt.Errorf("%s.name: duplicate server %q (also servers[%d])", field, srv.Name, j)
		}
		names[srv.Name] = i
		if srv.ID != "" {
			if j, dup := ids[srv.ID]; dup {
				return fmt.Errorf("%s.id: duplicate server id %q (also servers[%d]); two apiservers with one hostname share an identity", field, srv.ID, j)
			}
			ids[srv.ID] = i
		}
		if srv.Reachable && srv.Version == "" {
			return fmt.Errorf("%s (%s).version: must be set for a reachable server", field, srv.Name)
		}
		if err := checkVersion(srv.Version, fmt.Sprintf("%s (%s).version", field, srv.Name)); err != nil {
			return err
		}
		if err := checkVersion(srv.EmulatedVersion, fmt.Sprintf("%s (%s).emulatedVersion", field, srv.Name)); err != nil {
			return err
		}
		if contents[i] != nil {
			return contents[i]
		}
	}
	for i, sv := range s.Cluster.StorageVersions {
		if sv.Resource == "" {
			return fmt.Errorf("cluster.storageVersions[%d].resource: must be set", i)
		}
	}
	if err := s.validateLB(); err != nil {
		return err
	}
	if textSafe {
		return nil
	}
	if slices.Contains(badText, true) {
		return checkText(s) // the whole walk, for the error's full path
	}
	rest := *s
	rest.Servers = nil
	return checkText(&rest)
}

// validateContents checks a server's resource lists, recorded documents and core document;
// field names the server in errors ("servers[0] (kas-a)").
func (srv *Server) validateContents(field string) error {
	if err := validateResources(srv.Resources, field+".resources"); err != nil {
		return err
	}
	if err := validateResources(srv.PeerAggregated, field+".peerAggregated"); err != nil {
		return err
	}
	if err := validateDocument(srv.APIs, field+".apis"); err != nil {
		return err
	}
	if err := validateDocument(srv.DefaultAPIs, field+".defaultAPIs"); err != nil {
		return err
	}
	if err := srv.CoreAPI.CheckCore(); err != nil {
		return fmt.Errorf("%s.coreAPI.%w", field, err)
	}
	return nil
}

// lazyField prints as "field[index]": formatted only when an error is, not once per resource.
type lazyField struct {
	field string
	index int
}

func (f lazyField) String() string { return fmt.Sprintf("%s[%d]", f.field, f.index) }

func validateResources(rs []Resource, field string) error {
	seen := newFirstIndex(len(rs))
	for j := range rs {
		r := &rs[j]
		f := lazyField{field, j}
		if r.Resource == "" {
			return fmt.Errorf("%s.resource: must be set", f)
		}
		if r.Version == "" {
			return fmt.Errorf("%s.version: must be set (resource %q)", f, r.Resource)
		}
		if strings.Contains(r.Resource, "/") {
			return fmt.Errorf("%s.resource: %q is a subresource; list it under its resource's subresources", f, r.Resource)
		}
		switch r.Source {
		case "", SourceBuiltin, SourceCRD, SourceAggregated:
		default:
			return fmt.Errorf("%s.source: %q is not one of %s, %s, %s", f, r.Source, SourceBuiltin, SourceCRD, SourceAggregated)
		}
		if _, dup := seen.addResource(rs, j); dup {
			return fmt.Errorf("%s: duplicate resource %s", f, r.GVR())
		}
	}
	return nil
}

// validateDocument checks a recorded discovery document, naming field in the error.
func validateDocument(d *DiscoveryDocument, field string) error {
	if err := d.Check(); err != nil {
		return fmt.Errorf("%s.%w", field, err)
	}
	return nil
}

// Check returns the first problem that makes d unusable for the discovery merge: every /apis
// group is named, once, and every version is named, once per group. The error starts with
// the offending field path (items[i]...).
func (d *DiscoveryDocument) Check() error {
	if d == nil {
		return nil
	}
	groups := newFirstIndex(len(d.Items))
	for i := range d.Items {
		g := &d.Items[i]
		if g.Name == "" {
			return fmt.Errorf("items[%d].metadata.name: must be set (the core group is never in /apis)", i)
		}
		if j, dup := groups.addString(i, g.Name, func(j int) string { return d.Items[j].Name }); dup {
			return fmt.Errorf("items[%d]: duplicate group %q (also items[%d])", i, g.Name, j)
		}
		versions := newFirstIndex(len(g.Versions))
		for j := range g.Versions {
			v := g.Versions[j].Version
			if v == "" {
				return fmt.Errorf("items[%d].versions[%d].version: must be set (group %q)", i, j, g.Name)
			}
			if _, dup := versions.addString(j, v, func(k int) string { return g.Versions[k].Version }); dup {
				return fmt.Errorf("items[%d].versions[%d]: duplicate version %q of group %q", i, j, v, g.Name)
			}
		}
	}
	return nil
}

// Marshal encodes the snapshot as YAML or, when asJSON, indented JSON, in the current format
// (APIVersion): lists that the recorded discovery documents give are left out (Decode derives
// them again).
func (s *Snapshot) Marshal(asJSON bool) ([]byte, error) {
	s = s.compact()
	if asJSON {
		b, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return nil, err
		}
		return append(b, '\n'), nil
	}
	return yaml.Marshal(s)
}

// WriteFile writes the snapshot atomically: a temporary file in the same directory renamed
// over path, so a reader never sees a partial snapshot presented as whole.
func (s *Snapshot) WriteFile(path string, asJSON bool) error {
	data, err := s.Marshal(asJSON)
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".mvpctl-snapshot-*")
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", path, unwrapPathError(err))
	}
	tempFiles.Store(tmp.Name(), true)
	defer tempFiles.Delete(tmp.Name())
	defer os.Remove(tmp.Name())
	// CreateTemp makes the file 0600; a snapshot holds no credentials and is shared like
	// kubectl output.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("snapshot %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("snapshot %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("snapshot %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("snapshot %s: %w", path, unwrapPathError(err))
	}
	return nil
}

// tempFiles are the temporary files WriteFile is writing, for RemoveTempFiles.
var tempFiles sync.Map

// RemoveTempFiles removes the temporary files WriteFile has not finished with. A command
// interrupted by a signal calls it before exiting: the target file is never partial (it is
// renamed into place whole), and no .mvpctl-snapshot-* file is left beside it.
func RemoveTempFiles() {
	tempFiles.Range(func(name, _ any) bool {
		os.Remove(name.(string))
		tempFiles.Delete(name)
		return true
	})
}

// New returns an empty snapshot with apiVersion and kind set.
func New() *Snapshot { return &Snapshot{APIVersion: APIVersion, Kind: Kind} }

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
