package output

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// Fitting a terminal. Results for people (text, table) fit the width of the terminal they
// are printed on: a table wraps its free-text columns at spaces, or, when it still does not
// fit, prints each row as a record (its name, then HEADER: value pieces packed to the
// width); prose wraps at spaces with a hanging indent. In a pipe or a file, a table keeps
// one line per row whatever its width, so that grep and scripts see whole rows, and prose
// wraps at PipeColumns. -o wide keeps every line whole.

// PipeColumns is the width prose wraps at when results are not printed on a terminal (a
// pipe, a file): kubectl's help fits 80, the widest of mvpctl's tables 100.
const PipeColumns = 100

// fitLines is out fitted for text and table results: to the terminal's width, or, in a pipe
// or a file, prose to PipeColumns with every table row whole.
func fitLines(out io.Writer) io.Writer {
	if width := TerminalWidth(out); width > 0 {
		return Wrap(out, width)
	}
	if _, ok := out.(*fitter); ok {
		return out
	}
	return &fitter{w: out, width: PipeColumns, pipe: true}
}

// LineWidth is the width results printed to w fit: the terminal's, PipeColumns in a pipe
// (through fitLines), 0 when w is not fitted (-o wide).
func LineWidth(w io.Writer) int {
	if f, ok := w.(*fitter); ok {
		return f.width
	}
	return TerminalWidth(w)
}

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
// (a word wider than the line is written whole, never cut). Help texts and results on a terminal go through it.
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
	// pipe: not a terminal; tables are written whole, one line per row.
	pipe bool
	col  int // display columns written on the current line
	hang int // indent of the current line's continuations
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
		default: // a word wider than the line: whole, past the width (a terminal folds it)
			s = strings.TrimLeft(s, " ")
			n := strings.IndexByte(s, ' ')
			if n < 0 {
				b.WriteString(s)
				f.col += DisplayWidth(s)
				return
			}
			b.WriteString(s[:n])
			s = strings.TrimLeft(s[n:], " ")
		}
		b.WriteByte('\n')
		if s == "" {
			b.WriteString(strings.Repeat(" ", f.hang))
			f.col = f.hang
			return
		}
		// a word too wide to fit at the hanging indent starts further left, as far as it must
		f.col = f.hang
		if word, _, _ := strings.Cut(strings.TrimLeft(s, " "), " "); f.hang+DisplayWidth(word) > f.width {
			f.col = max(0, f.width-DisplayWidth(word))
		}
		b.WriteString(strings.Repeat(" ", f.col))
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

// fitColumns wraps the free-text columns of a table (a cell with a space) at spaces to make
// it fit width, the widest columns first, never narrower than the column's longest word or
// its header; ok is false when the table still does not fit (records then prints it). A
// word is never split.
func fitColumns(headers []string, rows [][]string, width int) (_ [][]string, ok bool) {
	const minText = 16 // a free-text column narrower reads a word a line
	widths := columnWidths(headers, rows)
	floors := make([]int, len(widths))
	for j, w := range widths {
		floors[j] = w
		if j > 0 && freeText(rows, j) {
			floors[j] = max(longestWord(rows, j), min(minText, w))
			if j < len(headers) {
				floors[j] = max(floors[j], DisplayWidth(headers[j]))
			}
		}
	}
	limit := width
	capOf := func(j int) int { return max(min(widths[j], limit), floors[j]) }
	total := func() int {
		n := len(columnGap) * max(len(widths)-1, 0)
		for j := range widths {
			n += capOf(j)
		}
		return n
	}
	for limit > 1 && total() > width {
		limit--
	}
	if total() > width {
		return rows, false
	}
	for j, w := range widths {
		if c := capOf(j); w > c {
			rows = wrapColumn(rows, j, c)
		}
	}
	return rows, true
}

// records prints a table that does not fit width as one record per row: its first cell on
// a line, then its other cells as HEADER: value (value alone without headers), packed to the
// width two columns in.
func records(headers []string, rows [][]string, width int) []byte {
	var b strings.Builder
	for _, r := range rows {
		if len(r) == 0 {
			continue
		}
		b.WriteString(strings.ReplaceAll(r[0], "\n", " "))
		col := width // the next piece starts a line
		for j, c := range r[1:] {
			piece := strings.ReplaceAll(c, "\n", " ")
			if j+1 < len(headers) {
				piece = headers[j+1] + ": " + piece
			}
			if n := DisplayWidth(piece); col+len(columnGap)+n <= width {
				b.WriteString(columnGap + piece)
				col += len(columnGap) + n
				continue
			}
			b.WriteString("\n  " + piece)
			col = 2 + DisplayWidth(piece)
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func longestWord(rows [][]string, col int) int {
	n := 0
	for _, r := range rows {
		if col < len(r) {
			for _, w := range strings.Fields(r[col]) {
				n = max(n, DisplayWidth(w))
			}
		}
	}
	return n
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

// wrapColumn returns rows with the cells of column col wrapped at spaces to width columns, as
// lines of one cell (the table prints them one under the other).
func wrapColumn(rows [][]string, col, width int) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = r
		if col >= len(r) || DisplayWidth(r[col]) <= width && !strings.Contains(r[col], "\n") {
			continue
		}
		var lines []string
		line := ""
		for _, w := range strings.Fields(r[col]) {
			if line != "" && DisplayWidth(line)+1+DisplayWidth(w) > width {
				lines = append(lines, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += w
		}
		out[i] = append([]string(nil), r...)
		out[i][col] = strings.Join(append(lines, line), "\n")
	}
	return out
}

// terminalWidth makes a Wrap writer a terminal of its width: what is printed through it
// (a table in a help text) fits it too.
func (f *fitter) terminalWidth() int {
	if f.pipe {
		return 0
	}
	return f.width
}
