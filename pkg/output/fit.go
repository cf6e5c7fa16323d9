package output

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// Fitting a terminal. Results for people (text, table) fit the width of the terminal they
// are printed on: a table wraps its widest free-text column, prose wraps at spaces with a
// hanging indent. -o wide keeps every line whole, and so does a pipe or a file: only a
// writer that Terminal marked is fitted, so that grep and scripts see full lines.

// Terminal marks w as a terminal of width columns, for Write to fit results to. A width of
// 0 or less (not a terminal) returns w as it is.
func Terminal(w io.Writer, width int) io.Writer {
	if width <= 0 {
		return w
	}
	return &terminal{w: w, width: width}
}

type terminal struct {
	w     io.Writer
	width int
}

func (t *terminal) Write(p []byte) (int, error) { return t.w.Write(p) }
func (t *terminal) terminalWidth() int          { return t.width }

// terminalWidth is the guard's terminal's: Guard wraps the marked stdout.
func (g *guard) terminalWidth() int { return TerminalWidth(g.w) }

// TerminalWidth is the width of the terminal w prints on, as Terminal marked it (through
// Guard), or 0 when w is not a terminal.
func TerminalWidth(w io.Writer) int {
	if t, ok := w.(interface{ terminalWidth() int }); ok {
		return t.terminalWidth()
	}
	return 0
}

// fitsTerminal reports whether format o is fitted to the terminal: the forms for people,
// except wide, which keeps everything.
func (o Options) fitsTerminal() bool {
	return o.Format == FormatText || o.Format == FormatTable
}

// Wrap returns a writer that wraps every line written to w at width columns: at the last
// space that fits, the rest of the line indented two columns more than the line began
// (a word wider than the line is cut). Help texts and results on a terminal go through it.
func Wrap(w io.Writer, width int) io.Writer {
	if f, ok := w.(*fitter); ok && f.width <= width {
		return f
	}
	return &fitter{w: w, width: width}
}

// fitter is Wrap's writer. It keeps the column the last write ended at, so that a line
// written in pieces is wrapped as one.
type fitter struct {
	w     io.Writer
	width int
	col   int // display columns written on the current line
	hang  int // indent of the current line's continuations
	// spaces ended the last piece of the current line: written before the next piece, dropped
	// when the line ends or wraps there (no trailing blanks).
	spaces int
}

func (f *fitter) Write(p []byte) (int, error) {
	var b strings.Builder
	lines := strings.SplitAfter(string(p), "\n")
	for _, line := range lines {
		text, nl := strings.CutSuffix(line, "\n")
		f.fit(&b, text)
		if nl {
			b.WriteByte('\n')
			f.col, f.spaces = 0, 0
		}
	}
	if _, err := io.WriteString(f.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// fit appends s, a piece of the current line, wrapped.
func (f *fitter) fit(b *strings.Builder, s string) {
	if s == "" {
		return
	}
	s, f.spaces = strings.Repeat(" ", f.spaces)+s, 0
	if f.col == 0 {
		f.hang = hangingIndent(s, f.width)
	}
	for f.col+DisplayWidth(strings.TrimRight(s, " ")) > f.width {
		room := f.width - f.col
		cut := lastSpaceWithin(s, room)
		switch {
		case cut > 0 && strings.TrimSpace(s[:cut]) != "":
			b.WriteString(strings.TrimRight(s[:cut], " "))
			s = strings.TrimLeft(s[cut:], " ")
		case f.col > f.hang:
			s = strings.TrimLeft(s, " ") // the word goes to the next line whole
		default:
			n := prefixWithin(s, max(room, 1))
			b.WriteString(s[:n])
			s = s[n:]
		}
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(" ", f.hang))
		f.col = f.hang
		if s == "" {
			return
		}
	}
	text := strings.TrimRight(s, " ")
	f.spaces = len(s) - len(text)
	b.WriteString(text)
	f.col += DisplayWidth(text)
}

// hangingIndent is where the continuations of line s begin: under the second column of a
// two-column line ("  crash:b   SIGKILL: ..."), else two columns right of its indent.
func hangingIndent(s string, width int) int {
	indent := leadingSpaces(s)
	if gap := strings.Index(s[indent:], "  "); gap > 0 {
		col := indent + gap + leadingSpaces(s[indent+gap:])
		if col <= width*3/5 && col < len(s) {
			return DisplayWidth(s[:col])
		}
	}
	return min(indent+2, width/2)
}

func leadingSpaces(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

// lastSpaceWithin is the byte offset of the last space in s whose text before it is at most
// room columns wide, or -1.
func lastSpaceWithin(s string, room int) int {
	cut, col := -1, 0
	forEachVisible(s, func(i int, r rune, w int) bool {
		if col > room {
			return false
		}
		if r == ' ' {
			cut = i
		}
		col += w
		return true
	})
	return cut
}

// prefixWithin is the byte length of the longest prefix of s at most room columns wide (at
// least one character, so that wrapping always advances).
func prefixWithin(s string, room int) int {
	end, col := 0, 0
	forEachVisible(s, func(i int, r rune, w int) bool {
		if col+w > room && end > 0 {
			return false
		}
		col += w
		end = i + utf8.RuneLen(r)
		return true
	})
	if end < len(s) && end > 0 {
		// an escape sequence right after the cut stays with the text it ends
		for strings.HasPrefix(s[end:], "\x1b[") {
			n := strings.IndexByte(s[end:], 'm')
			if n < 0 {
				break
			}
			end += n + 1
		}
	}
	return end
}

// forEachVisible calls fn for every character of s that takes room on a terminal, with its
// byte offset and width, skipping the colour sequences Paint writes; fn returns false to
// stop.
func forEachVisible(s string, fn func(i int, r rune, w int) bool) {
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "\x1b[") {
			if n := strings.IndexByte(s[i:], 'm'); n > 0 {
				i += n + 1
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		w := runewidth.RuneWidth(r)
		if r == '\t' {
			w = 8
		}
		if !fn(i, r, w) {
			return
		}
		i += size
	}
}

// DisplayWidth is the number of terminal columns s takes: a wide character counts two, a
// colour sequence nothing.
func DisplayWidth(s string) int {
	n := 0
	forEachVisible(s, func(_ int, _ rune, w int) bool { n += w; return true })
	return n
}

// fitColumns wraps columns to make the table fit width: every column but the first (the row's
// name) wider than a common limit is wrapped to it, the limit the widest that fits, so the
// widest columns give way first. Free text (a cell with a space) wraps at spaces, never
// narrower than its header or minText; an identifier (a GVR, a list of peers) after a /, .,
// , or -, never narrower than minIdentifier. A table that still does not fit is left to Wrap.
func fitColumns(headers []string, rows [][]string, width int) [][]string {
	const minText, minIdentifier = 16, 20
	widths := columnWidths(headers, rows)
	text := make([]bool, len(widths))
	floors := make([]int, len(widths))
	for j, w := range widths {
		text[j] = freeText(rows, j)
		floors[j] = minText
		if !text[j] {
			floors[j] = minIdentifier
		}
		if j < len(headers) {
			floors[j] = max(floors[j], DisplayWidth(headers[j]))
		}
		floors[j] = min(floors[j], w)
	}
	limit := width
	capOf := func(j int) int {
		if j == 0 {
			return widths[j]
		}
		return max(min(widths[j], limit), floors[j])
	}
	total := func() int {
		n := len(columnGap) * max(len(widths)-1, 0)
		for j := range widths {
			n += capOf(j)
		}
		return n
	}
	for limit > minText && total() > width {
		limit--
	}
	for j, w := range widths {
		if c := capOf(j); w > c {
			rows = wrapColumn(rows, j, c)
		}
	}
	return rows
}

func columnWidths(headers []string, rows [][]string) []int {
	var widths []int
	grow := func(j, w int) {
		for len(widths) <= j {
			widths = append(widths, 0)
		}
		widths[j] = max(widths[j], w)
	}
	for j, h := range headers {
		grow(j, DisplayWidth(h))
	}
	for _, r := range rows {
		for j, c := range r {
			for _, line := range strings.Split(c, "\n") {
				grow(j, DisplayWidth(line))
			}
		}
	}
	return widths
}

func freeText(rows [][]string, col int) bool {
	for _, r := range rows {
		if col < len(r) && strings.Contains(r[col], " ") {
			return true
		}
	}
	return false
}

// wrapColumn returns rows with the cells of column col wrapped to width columns, as lines
// of one cell (the table prints them one under the other).
func wrapColumn(rows [][]string, col, width int) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = r
		if col >= len(r) || DisplayWidth(r[col]) <= width && !strings.Contains(r[col], "\n") {
			continue
		}
		var b strings.Builder
		f := &fitter{w: &b, width: width}
		f.hang = 0
		cell := strings.ReplaceAll(r[col], "\n", " ")
		f.fitCell(&b, cell)
		out[i] = append([]string(nil), r...)
		out[i][col] = b.String()
	}
	return out
}

// fitCell appends s wrapped to f.width without a hanging indent: the lines of one cell.
func (f *fitter) fitCell(b *strings.Builder, s string) {
	f.col, f.hang = 0, 0
	for DisplayWidth(s) > f.width {
		cut := lastSpaceWithin(s, f.width)
		hyphen := strings.LastIndexAny(s[:prefixWithin(s, f.width)], "-–/.,")
		switch {
		case cut > 0:
			b.WriteString(strings.TrimRight(s[:cut], " "))
			s = strings.TrimLeft(s[cut:], " ")
		case hyphen > 0: // endpoint-resolution breaks after its hyphen, a GVR after a / or .
			_, size := utf8.DecodeRuneInString(s[hyphen:])
			b.WriteString(s[:hyphen+size])
			s = s[hyphen+size:]
		default:
			n := prefixWithin(s, f.width)
			b.WriteString(s[:n])
			s = s[n:]
		}
		b.WriteByte('\n')
	}
	b.WriteString(s)
}

// terminalWidth makes a Wrap writer a terminal of its width: what is printed through it
// (a table in a help text) fits it too.
func (f *fitter) terminalWidth() int { return f.width }
