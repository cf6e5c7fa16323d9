package replay

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Reading manifests document by document: a document that does not parse is a problem
// named FILE:LINE:COLUMN, and the documents after it, and the other files, are still read.

// ManifestProblem is a document of a manifest that could not be read.
type ManifestProblem struct {
	File string `json:"file"`
	Line int    `json:"line"`
	// Column is the first template action ({{), tab or other character on Line: the YAML
	// parser names the line only.
	Column int `json:"column,omitempty"`
	// Message is the parser's, one line.
	Message string `json:"message"`
	// Template says the document holds Go template actions ({{ }}): a Helm chart's template,
	// which is read once rendered.
	Template bool `json:"template,omitempty"`
}

// RenderHint is what to do with a Go/Helm template given as a manifest.
const RenderHint = "a Go/Helm template: render it first (helm template RELEASE CHART | mvpctl preflight --manifests -)"

// Where is FILE:LINE:COLUMN.
func (p ManifestProblem) Where() string {
	w := p.File + ":" + strconv.Itoa(p.Line)
	if p.Column > 0 {
		w += ":" + strconv.Itoa(p.Column)
	}
	return w
}

// Text is the problem as one line, under the flag that read it.
func (p ManifestProblem) Text(source string) string {
	s := fmt.Sprintf("%s %s: %s", source, p.Where(), p.Message)
	if p.Template {
		s += ": " + RenderHint
	}
	return s
}

// ManifestRead is what one --manifests path gave: its objects, the documents that could not be
// read, and the files of a directory that are not manifests.
type ManifestRead struct {
	Path     string            `json:"path"`
	Objects  []ManifestObject  `json:"-"`
	Problems []ManifestProblem `json:"problems,omitempty"`
	// Skipped are the files of a directory that are not .yaml, .yml or .json (a README).
	Skipped []string `json:"skipped,omitempty"`
	// Files is how many files were read (stdin is one).
	Files int `json:"files"`
}

// ReadManifests is ReadManifestSet's objects; a document that does not parse is its error.
func ReadManifests(path string, stdin io.Reader) ([]ManifestObject, error) {
	return ReadManifestsWithin(path, stdin, NewBudget())
}

// ReadManifestsWithin is ReadManifests within what is left of budget (ReadManifestSetWithin).
func ReadManifestsWithin(path string, stdin io.Reader, budget *Budget) ([]ManifestObject, error) {
	set, err := ReadManifestSetWithin(path, stdin, budget)
	if err == nil && len(set.Problems) > 0 {
		err = errors.New(set.Problems[0].Text("--manifests"))
	}
	return set.Objects, err
}

func (r *manifestReader) result() ManifestRead {
	return ManifestRead{Objects: r.objs, Problems: r.problems, Skipped: r.skipped, Files: r.files}
}

// documents reads in document by document, holding one at a time: each starts at a line that
// begins with "---" (a YAML document marker, which ends any document before it), so that one
// that does not parse is a problem and the next is read. An error reading in is a readError.
func (r *manifestReader) documents(in io.Reader, name string) error {
	br := bufio.NewReaderSize(in, 64<<10)
	var doc []byte // the document being read: reused, as document keeps none of it
	line, startLine, atLineStart := 1, 1, true
	for {
		frag, err := br.ReadSlice('\n') // a line, or a part of one longer than the buffer
		if atLineStart && len(doc) > 0 && isDocumentMarker(frag) {
			if err := r.document(doc, name, startLine); err != nil {
				return err
			}
			doc, startLine = doc[:0], line
		}
		doc = append(doc, frag...)
		if atLineStart = len(frag) > 0 && frag[len(frag)-1] == '\n'; atLineStart {
			line++
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			return r.document(doc, name, startLine)
		default:
			if _, ok := AsBudgetError(err); ok {
				return err
			}
			return readError{err}
		}
	}
}

// readError is an error reading a manifest's bytes, not parsing them.
type readError struct{ err error }

func (e readError) Error() string { return e.err.Error() }
func (e readError) Unwrap() error { return e.err }

func isDocumentMarker(b []byte) bool {
	return bytes.HasPrefix(b, []byte("---")) && (len(b) == 3 || b[3] == '\n' || b[3] == '\r' || b[3] == ' ' || b[3] == '\t')
}

var sourceComment = regexp.MustCompile(`(?m)^# Source: (.+?)\r?$`)

// document reads one document (and any after it up to the next marker), whose first line is
// line first of the file.
func (r *manifestReader) document(doc []byte, name string, first int) error {
	r.template = ""
	if m := sourceComment.FindSubmatch(doc); m != nil {
		r.template = string(m[1])
	}
	r.lineOffset = first - 1
	dec := yaml.NewDecoder(bytes.NewReader(doc))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			r.problems = append(r.problems, parseProblem(doc, name, first, err))
			return nil
		}
		if err := r.budget.document(name); err != nil {
			return err
		}
		if len(n.Content) == 1 {
			if err := r.object(n.Content[0], name); err != nil {
				return err
			}
		}
	}
}

var errorLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)

// parseProblem names where err is in the file: the line the parser names, and on it the column
// of the first template action, tab, or other character.
func parseProblem(doc []byte, name string, first int, err error) ManifestProblem {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	rel := 1
	if m := errorLine.FindStringSubmatch(msg); m != nil {
		rel, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
		// The YAML parser (not its scanner) states the line counted from 0.
		if parserProblem(msg) {
			rel++
		}
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	p := ManifestProblem{File: name, Line: first + rel - 1, Message: msg, Template: isTemplate(doc)}
	lines := bytes.Split(doc, []byte("\n"))
	if rel-1 < len(lines) {
		p.Column = problemColumn(lines[rel-1], msg)
	}
	return p
}

// parserProblems are the problems go.yaml.in/yaml/v3's parser (parserc.go) reports: it names
// the line where the construct began, counted from 0 (its scanner's errors count from 1).
var parserProblems = []string{"did not find expected ',' or ']'", "did not find expected ',' or '}'", "did not find expected '-' indicator",
	"did not find expected <document start>", "did not find expected <stream-start>", "did not find expected key", "did not find expected node content",
	"found duplicate %TAG directive", "found duplicate %YAML directive", "found incompatible YAML document", "found undefined tag handle"}

func parserProblem(msg string) bool {
	for _, p := range parserProblems {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

func isTemplate(doc []byte) bool {
	i := bytes.Index(doc, []byte("{{"))
	return i >= 0 && bytes.Contains(doc[i:], []byte("}}"))
}

func problemColumn(line []byte, msg string) int {
	if i := bytes.Index(line, []byte("{{")); i >= 0 {
		return i + 1
	}
	// An unclosed flow collection: the parser names the line it opens on.
	for _, open := range []struct{ closer, opener string }{{"']'", "["}, {"'}'", "{"}} {
		if strings.Contains(msg, open.closer) {
			if i := bytes.LastIndex(line, []byte(open.opener)); i >= 0 {
				return i + 1
			}
		}
	}
	if i := bytes.IndexByte(line, '\t'); i >= 0 {
		return i + 1
	}
	for i, c := range line {
		if c != ' ' {
			return i + 1
		}
	}
	return 1
}

// templateProblem records an object whose apiVersion or kind is an unrendered template action.
func (r *manifestReader) templateProblem(file string, line int) {
	r.problems = append(r.problems, ManifestProblem{File: file, Line: line, Message: "apiVersion or kind is a template action, not a value", Template: true})
}

// metadataName is a metadata mapping's namespace and name.
func metadataName(n *yaml.Node) (namespace, name string) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			continue
		}
		switch k.Value {
		case "namespace":
			namespace = v.Value
		case "name":
			name = v.Value
		}
	}
	return namespace, name
}

// staticPodHint is what to add when a --manifests path that does not exist looks like an
// apiserver's static pod manifest, SERVER=FILE: that is --static-pod-manifest's value.
func staticPodHint(path string) string {
	server, file, ok := strings.Cut(path, "=")
	if !ok || server == "" || strings.Contains(server, string(os.PathSeparator)) {
		return ""
	}
	if _, err := os.Stat(file); err != nil {
		return ""
	}
	return fmt.Sprintf(" (SERVER=FILE names an apiserver's static pod manifest: that is --static-pod-manifest %s (a live run); --manifests takes the objects clients apply)", path)
}
