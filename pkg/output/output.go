// Package output prints a command's result in the format -o names: kubectl-style tables
// (table, wide), one name per line (name), CSV, a JSONPath template over the JSON document
// (jsonpath=...), prose (text), JSON, YAML, markdown and JUnit XML. Every command wraps its
// result in a Writer and hands it to Write, and declares its -o and --no-headers flags with
// Flags, so both mean the same in every command (helm's pkg/cli/output is the model).
//
// The package knows nothing of Kubernetes or of routing: what a result contains, and how its
// rows read, is its renderer's business (cmd/mvpctl/internal/render).
package output

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"
)

// Format is an output format, the value of -o.
type Format string

const (
	// FormatText is prose for people, for results that are not a table (an explanation, a
	// version).
	FormatText Format = "text"
	// FormatTable is kubectl-style columns.
	FormatTable Format = "table"
	// FormatWide is FormatTable with more columns.
	FormatWide Format = "wide"
	// FormatJSON and FormatYAML print the result's versioned document (apiVersion, kind).
	FormatJSON Format = "json"
	FormatYAML Format = "yaml"
	// FormatMarkdown is for pull-request comments.
	FormatMarkdown Format = "markdown"
	// FormatJUnit is JUnit XML, for CI test dashboards.
	FormatJUnit Format = "junit"
	// FormatMermaid is a Mermaid flowchart, for Markdown (GitHub and GitLab render it).
	FormatMermaid Format = "mermaid"
	// FormatDOT is a Graphviz digraph, for images (dot -Tpng).
	FormatDOT Format = "dot"
	// FormatName prints one identifier per line (kubectl's -o name): what a script feeds to
	// the next command.
	FormatName Format = "name"
	// FormatCSV is the table (TableWriter) as CSV, with the same uppercase headers.
	FormatCSV Format = "csv"
	// FormatJSONPath is -o jsonpath=TEMPLATE: client-go's JSONPath over the JSON document,
	// as kubectl's.
	FormatJSONPath Format = "jsonpath"
)

// Structured reports whether f prints the result's document rather than text for people.
func (f Format) Structured() bool { return f == FormatJSON || f == FormatYAML }

// Options say how a result is printed.
type Options struct {
	Format Format
	// NoHeaders drops the header row of every table (kubectl's --no-headers), CSV's too.
	// Formats without header rows ignore it.
	NoHeaders bool
	// JSONPath is the template of -o jsonpath=TEMPLATE.
	JSONPath string
	// Color paints outcomes (Paint): only for people, on a terminal, without NO_COLOR.
	Color bool
}

// Wide reports whether the extra columns of -o wide are asked for.
func (o Options) Wide() bool { return o.Format == FormatWide }

// Writer is a command's result, printable in every format its command declares.
type Writer interface {
	// WriteText writes the forms for people: text, table or wide, as o.Format says.
	WriteText(out io.Writer, o Options) error
	// Object is the document -o json and -o yaml encode: a versioned object with apiVersion
	// and kind, so that scripts get a stable contract.
	Object() any
}

// JSONWriter is a Writer whose JSON is written as it is rather than encoded from Object: a
// document that must come out byte for byte as another program sends it.
type JSONWriter interface {
	WriteJSON(out io.Writer) error
}

// YAMLWriter is a Writer whose YAML is written as it is rather than encoded from Object.
type YAMLWriter interface {
	WriteYAML(out io.Writer) error
}

// MarkdownWriter is a Writer that can print itself as markdown.
type MarkdownWriter interface {
	WriteMarkdown(out io.Writer) error
}

// JUnitWriter is a Writer that can print itself as JUnit XML.
type JUnitWriter interface {
	WriteJUnit(out io.Writer) error
}

// MermaidWriter is a Writer that can draw itself as a Mermaid flowchart.
type MermaidWriter interface {
	WriteMermaid(out io.Writer) error
}

// DOTWriter is a Writer that can draw itself as a Graphviz digraph.
type DOTWriter interface {
	WriteDOT(out io.Writer) error
}

// Write prints w to out as o says. What is not JSON or YAML goes through Guard (and markdown
// through MarkdownHTML): text from outside prints as text whatever a printer forgot.
func Write(out io.Writer, w Writer, o Options) error {
	if !o.Format.Structured() {
		out = Guard(out, func() bool { return o.Color })
	}
	if o.fitsTerminal() {
		out = fitLines(out)
	}
	switch o.Format {
	case FormatJSON:
		if jw, ok := w.(JSONWriter); ok {
			return jw.WriteJSON(out)
		}
		return EncodeJSON(out, w.Object())
	case FormatYAML:
		if yw, ok := w.(YAMLWriter); ok {
			return yw.WriteYAML(out)
		}
		return EncodeYAML(out, w.Object())
	case FormatMarkdown:
		if mw, ok := w.(MarkdownWriter); ok {
			return mw.WriteMarkdown(markdownGuard{out})
		}
	case FormatJUnit:
		if jw, ok := w.(JUnitWriter); ok {
			return jw.WriteJUnit(out)
		}
	case FormatMermaid:
		if mw, ok := w.(MermaidWriter); ok {
			return mw.WriteMermaid(out)
		}
	case FormatDOT:
		if dw, ok := w.(DOTWriter); ok {
			return dw.WriteDOT(out)
		}
	case FormatName:
		if nw, ok := w.(NameWriter); ok {
			return writeNames(out, nw.Names())
		}
	case FormatCSV:
		if tw, ok := w.(TableWriter); ok {
			headers, rows := tw.Table(o)
			return writeCSV(out, headers, rows, o.NoHeaders)
		}
	case FormatJSONPath:
		return writeJSONPath(out, w.Object(), o.JSONPath)
	default:
		return w.WriteText(out, o)
	}
	// A command declared a format its result cannot print: a bug, not a user error.
	return fmt.Errorf("%T cannot be printed as %s", w, o.Format)
}

// WriteLine prints w as one item of a stream: -o json as one line of JSON (JSON Lines, so a
// reader can act on each item as it comes), every other format as WriteText.
func WriteLine(out io.Writer, w Writer, o Options) error {
	if o.Format != FormatJSON {
		out = Guard(out, func() bool { return o.Color })
		if width := TerminalWidth(out); width > 0 && o.fitsTerminal() {
			out = Wrap(out, width)
		}
		return w.WriteText(out, o)
	}
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	return enc.Encode(w.Object())
}

// EncodeJSON writes v as indented JSON, with <, > and & as they are (the output is read by
// people and scripts, never embedded in HTML).
func EncodeJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// EncodeYAML writes v as YAML, through its JSON form (field names and omitempty as in JSON).
func EncodeYAML(out io.Writer, v any) error {
	b, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	_, err = out.Write(b)
	return err
}

// Flags are a command's -o/--output and --no-headers flags. Every command declares them
// through Flags, so their names, help and errors are the same everywhere.
type Flags struct {
	formats   []Format
	aliases   map[string]Format
	notes     []string
	format    string
	noHeaders bool
}

// NewFlags declares the formats a command supports; the first is the default.
func NewFlags(formats ...Format) *Flags {
	if len(formats) == 0 {
		panic("output.NewFlags: no format")
	}
	return &Flags{formats: formats, format: string(formats[0])}
}

// Alias makes name another name of format, which the command supports: for a format whose
// name differs from command to command for the same output (a stream of lines is "text" to
// watch and was "table" to routes --watch). Aliases are listed after the formats.
func (f *Flags) Alias(name string, format Format) *Flags {
	if !slices.Contains(f.formats, format) {
		panic("output.Flags.Alias: " + string(format) + " is not a format of the command")
	}
	if f.aliases == nil {
		f.aliases = map[string]Format{}
	}
	f.aliases[name] = format
	return f
}

// Note adds a sentence to the help of -o: what a format means for this command where it is
// not what it means elsewhere (wide with no more columns than table, as kubectl says so
// rather than refusing -o wide).
func (f *Flags) Note(note string) *Flags {
	f.notes = append(f.notes, note)
	return f
}

// FormatsAnnotation is the annotation of the -o flag AddFlags adds that lists the command's
// formats, so that shell completion can offer them where only the flag is at hand.
const FormatsAnnotation = "mvpctl.io/output-formats"

// AddFlags adds -o/--output and --no-headers to fs.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	usage := "output format: " + f.list()
	for _, n := range f.notes {
		usage += "; " + n
	}
	fs.StringVarP(&f.format, "output", "o", f.format, usage)
	_ = fs.SetAnnotation("output", FormatsAnnotation, f.Formats()) // the flag was just added
	fs.BoolVar(&f.noHeaders, "no-headers", false, "omit the header row of tables (table, wide and csv output)")
}

// Formats lists the formats the command supports, the default first, then the aliases, as
// -o takes them (jsonpath=TEMPLATE).
func (f *Flags) Formats() []string {
	names := make([]string, 0, len(f.formats)+len(f.aliases))
	for _, a := range f.formats {
		if a == FormatJSONPath {
			names = append(names, string(a)+"=TEMPLATE")
			continue
		}
		names = append(names, string(a))
	}
	aliases := make([]string, 0, len(f.aliases))
	for a := range f.aliases {
		aliases = append(aliases, a)
	}
	slices.Sort(aliases)
	return append(names, aliases...)
}

// Options returns the options the flags give, or, when -o names a format the command does
// not support, the one-line error every command gives. command is the command's path as the
// user typed it ("mvpctl routes").
func (f *Flags) Options(command string) (Options, error) {
	o := Options{NoHeaders: f.noHeaders}
	if tmpl, ok := strings.CutPrefix(f.format, string(FormatJSONPath)+"="); ok && slices.Contains(f.formats, FormatJSONPath) {
		if err := checkJSONPath(tmpl); err != nil {
			return Options{}, fmt.Errorf("-o jsonpath=%s: %v (want e.g. -o jsonpath='{.rows[*].name}')", tmpl, err)
		}
		o.Format, o.JSONPath = FormatJSONPath, tmpl
		return o, nil
	}
	for _, a := range f.formats {
		if f.format == string(a) && a != FormatJSONPath {
			o.Format = a
			return o, nil
		}
	}
	if a, ok := f.aliases[f.format]; ok {
		o.Format = a
		return o, nil
	}
	return Options{}, fmt.Errorf("unknown output format %q for %q: want one of %s", f.format, command, f.list())
}

func (f *Flags) list() string { return strings.Join(f.Formats(), "|") }
