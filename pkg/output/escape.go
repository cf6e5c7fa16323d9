package output

import (
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/mvpctl/mvpctl/internal/textsafe"
)

// Text that came from outside mvpctl — names, messages and labels from a cluster, an audit
// log's User-Agent, a file's comments, a flag — is data: it must print as text in every
// medium, never act on it. A terminal acts on control characters (ESC starts sequences that
// retitle the window or clear the screen, CR overwrites a line), markdown and JUnit on HTML,
// DOT and Mermaid on quotes. The rules are here, and every printer goes through them:
//
//   - Guard wraps the process's stdout and stderr (and Write's out): no control character
//     but newline and tab passes, whoever wrote it;
//   - Table, CSV and -o name make a cell's control characters visible, newline and tab too,
//     so that a value cannot add a row or a column;
//   - Write's markdown passes no HTML tag but the few, attribute-free ones printers use;
//   - JUnit's XML encoder escapes markup, and its text is made visible first;
//   - pkg/diagram quotes labels and keeps identifiers apart.
//
// JSON and YAML keep the exact value: their encoders escape what needs it.

// Visible is textsafe.Visible: every character that acts on a terminal written as a Go
// escape (\x1b), newline and tab too. A value printed on one line goes through it.
func Visible(s string) string { return textsafe.Visible(s) }

// VisibleLines is textsafe.VisibleLines: Visible with newlines and tabs kept.
func VisibleLines(s string) string { return textsafe.VisibleLines(s) }

// Cell is a table, CSV or -o name cell as printed: Visible, except for the colour Paint
// gave it (whether that colour reaches the terminal is Guard's decision).
func Cell(s string) string {
	for _, code := range toneCodes {
		if inner, ok := strings.CutPrefix(s, code); ok {
			if inner, ok := strings.CutSuffix(inner, colorReset); ok {
				return code + Visible(inner) + colorReset
			}
		}
	}
	return Visible(s)
}

// Guard returns a writer that passes what is written to w with every control character
// made visible but newline and tab (VisibleLines): the last line of defence between text
// from outside and a terminal, around the process's stdout and stderr. color reports
// whether the colour codes Paint writes may pass (nil: never); any other escape sequence is
// made visible. Each Write is escaped on its own (mvpctl writes whole strings: a character is
// never split across two writes).
func Guard(w io.Writer, color func() bool) io.Writer {
	if g, ok := w.(*guard); ok {
		return g
	}
	return &guard{w: w, color: color}
}

type guard struct {
	w     io.Writer
	color func() bool
}

func (g *guard) Write(p []byte) (int, error) {
	if textsafe.FirstUnsafe(p, true) < 0 {
		return g.w.Write(p)
	}
	s := string(p)
	var out string
	if g.color != nil && g.color() {
		out = escapeAroundColor(s)
	} else {
		out = VisibleLines(s)
	}
	if _, err := io.WriteString(g.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// escapeAroundColor is VisibleLines, with Paint's colour codes passed as they are.
func escapeAroundColor(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			b.WriteString(VisibleLines(s))
			return b.String()
		}
		b.WriteString(VisibleLines(s[:i]))
		s = s[i:]
		code := ""
		for _, c := range append([]string{colorReset}, toneCodeList...) {
			if strings.HasPrefix(s, c) {
				code = c
				break
			}
		}
		if code == "" {
			b.WriteString(`\x1b`)
			s = s[1:]
			continue
		}
		b.WriteString(code)
		s = s[len(code):]
	}
}

// markdownTags are the HTML tags markdown printers write themselves, without attributes:
// every other '<' in markdown is written &lt;, so that text from outside (an
// <img onerror=...>, a </td><script>, a <!-- that would hide the rest of a comment) prints as
// text in a pull-request comment. A '>' opens nothing, so it stays (a blockquote, an arrow).
// A printer that needs another tag adds it here; none writes a line break (<br>): one in text
// from outside would put what follows it on a line of its own.
var markdownTags = []string{"<details>", "</details>", "<summary>", "</summary>",
	"<b>", "</b>", "<code>", "</code>", "<sub>", "</sub>", "<p>", "</p>"}

// MarkdownHTML returns markdown with every '<' that does not open one of the markdownTags
// written as &lt;, every "](" as "]\(" (no printer writes a link or an image: one in text
// from outside would fetch or point anywhere), and control characters but newline and tab
// visible.
func MarkdownHTML(md string) string {
	md = strings.ReplaceAll(VisibleLines(md), "](", `]\(`)
	if !strings.Contains(md, "<") {
		return md
	}
	var b strings.Builder
	b.Grow(len(md) + 16)
	for i := 0; i < len(md); i++ {
		switch md[i] {
		case '<':
			if tag := markdownTagAt(md[i:]); tag != "" {
				b.WriteString(tag)
				i += len(tag) - 1
				continue
			}
			b.WriteString("&lt;")
		default:
			b.WriteByte(md[i])
		}
	}
	return b.String()
}

func markdownTagAt(s string) string {
	for _, t := range markdownTags {
		if len(s) >= len(t) && strings.EqualFold(s[:len(t)], t) {
			return s[:len(t)]
		}
	}
	return ""
}

// markdownGuard applies MarkdownHTML to everything a markdown printer writes. Printers write
// whole lines or whole tables: a tag is never split across two writes.
type markdownGuard struct{ w io.Writer }

func (g markdownGuard) Write(p []byte) (int, error) {
	if _, err := io.WriteString(g.w, MarkdownHTML(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Sprintf is fmt.Sprintf with every value made one line where it is placed: each string, error
// and fmt.Stringer argument goes through Cell (Visible, Paint's colour kept), so that a newline
// or a separator inside a value from outside is written \x0a rather than starting a line of
// its own, while the format's own newlines stay. Guard cannot do this: it sees the writer's
// newlines and a value's alike. Text printers place values with it.
func Sprintf(format string, args ...any) string {
	return fmt.Sprintf(format, cellArgs(args)...)
}

// Fprintf is Sprintf written to w.
func Fprintf(w io.Writer, format string, args ...any) (int, error) {
	return fmt.Fprintf(w, format, cellArgs(args)...)
}

func cellArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case error:
			out[i] = Cell(v.Error())
		case fmt.Stringer:
			out[i] = Cell(v.String())
		case string:
			out[i] = Cell(v)
		default:
			if rv := reflect.ValueOf(a); rv.Kind() == reflect.String {
				out[i] = Cell(rv.String())
			} else {
				out[i] = a
			}
		}
	}
	return out
}
