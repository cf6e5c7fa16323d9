package output

import (
	"bytes"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"

	"github.com/mvpctl/mvpctl/internal/parallel"
)

// Table writes rows under headers the way kubectl does: no borders, no separator lines,
// left-aligned columns three spaces apart, no trailing blanks. Headers must already be
// uppercase without spaces (NAME, KAS-A). Empty cells print as <none>.
//
// A long table (a routing table of 100,000 GVRs) is rendered in chunks side by side, each by
// its own tablewriter with every column's width set to the whole table's, so that the chunks
// line up as one table would; the result is written with one write, not one per line.
func Table(w io.Writer, headers []string, rows [][]string, noHeaders bool) error {
	cells := make([][]string, len(rows))
	for i, r := range rows {
		cells[i] = make([]string, len(r))
		for j, c := range r {
			if c == "" {
				c = "<none>"
			}
			cells[i][j] = c
		}
	}
	if noHeaders {
		headers = nil
	}
	_, err := w.Write(renderChunks(headers, cells, columnWidths(headers, cells)))
	return err
}

// minRowsPerChunk is the fewest rows Table renders on a goroutine of its own.
const minRowsPerChunk = 2048

// renderChunks renders cells in chunks side by side and joins them, headers above the first.
func renderChunks(headers []string, cells [][]string, widths []int) []byte {
	// Chunks covers [0, len(cells)) with at most one chunk per CPU: index them by first row.
	parts := make([][]byte, len(cells)+1)
	parallel.Chunks(len(cells), minRowsPerChunk, func(lo, hi int) {
		var h []string
		if lo == 0 {
			h = headers
		}
		parts[lo] = render(h, cells[lo:hi], widths)
	})
	if len(cells) == 0 {
		parts[0] = render(headers, nil, widths)
	}
	var n int
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// render is one table of rows (with headers, unless nil), its columns at least widths wide,
// its lines without trailing blanks: as tablewriter prints it.
func render(headers []string, rows [][]string, widths []int) []byte {
	if out, ok := renderPlain(headers, rows, widths); ok {
		return out
	}
	return renderTablewriter(headers, rows, widths)
}

// renderPlain is what tablewriter prints for a table whose cells are all printable ASCII, a
// cell for each column of widths: each cell padded to its column's width, three spaces
// between columns (TestRenderPlainIsTablewriters). tablewriter measures every cell twice,
// each time stripping ANSI sequences with a regular expression: most of the time of printing
// a routing table of 20,000 rows. It declines (false) any other table.
func renderPlain(headers []string, rows [][]string, widths []int) ([]byte, bool) {
	if len(widths) == 0 {
		return nil, false
	}
	plain := func(r []string) bool {
		if len(r) != len(widths) {
			return false
		}
		for j, c := range r {
			if !printableASCII(c) || len(c) > widths[j] {
				return false
			}
		}
		return true
	}
	if headers != nil && !plain(headers) {
		return nil, false
	}
	for _, r := range rows {
		if !plain(r) {
			return nil, false
		}
	}
	lineSize := 1 // the newline
	for _, w := range widths {
		lineSize += w + len(columnGap)
	}
	out := make([]byte, 0, lineSize*(len(rows)+1))
	line := func(r []string) {
		start := len(out)
		for j, c := range r {
			out = append(out, c...)
			if j < len(r)-1 {
				for range widths[j] - len(c) + len(columnGap) {
					out = append(out, ' ')
				}
			}
		}
		out = out[:start+len(bytes.TrimRight(out[start:], " "))]
		out = append(out, '\n')
	}
	if headers != nil {
		line(headers)
	}
	for _, r := range rows {
		line(r)
	}
	return out, true
}

// columnGap is the space between two columns, as kubectl prints it.
const columnGap = "   "

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// renderTablewriter is render by tablewriter itself, for any table.
func renderTablewriter(headers []string, rows [][]string, widths []int) []byte {
	var buf bytes.Buffer
	t := tablewriter.NewWriter(&buf)
	t.SetAutoWrapText(false)
	t.SetAutoFormatHeaders(false)
	t.SetHeaderAlignment(tablewriter.ALIGN_LEFT)
	t.SetAlignment(tablewriter.ALIGN_LEFT)
	t.SetBorder(false)
	t.SetHeaderLine(false)
	t.SetCenterSeparator("")
	t.SetColumnSeparator("")
	t.SetRowSeparator("")
	t.SetTablePadding(columnGap)
	t.SetNoWhiteSpace(true)
	if headers != nil {
		t.SetHeader(headers)
	}
	for col, width := range widths {
		t.SetColMinWidth(col, width)
	}
	t.AppendBulk(rows)
	t.Render()
	out := make([]byte, 0, buf.Len())
	for _, line := range bytes.SplitAfter(buf.Bytes(), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		out = append(append(out, bytes.TrimRight(line, " \n")...), '\n')
	}
	return out
}

// columnWidths is the display width of each column over headers and every row, as tablewriter
// measures it (its DisplayWidth of each line of a cell). A cell of printable ASCII, nearly all
// of them, is as wide as it is long: no ANSI sequence to skip, no wide character.
func columnWidths(headers []string, rows [][]string) []int {
	var widths []int
	measure := func(r []string) {
		for j, c := range r {
			for len(widths) <= j {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], displayWidth(c))
		}
	}
	measure(headers)
	for _, r := range rows {
		measure(r)
	}
	return widths
}

func displayWidth(cell string) int {
	if printableASCII(cell) {
		return len(cell)
	}
	w := 0
	for _, line := range strings.Split(cell, "\n") {
		w = max(w, tablewriter.DisplayWidth(line))
	}
	return w
}

// Header turns a name into a table header: uppercase, spaces and underscores as dashes.
func Header(name string) string {
	return strings.ToUpper(strings.NewReplacer(" ", "-", "_", "-").Replace(name))
}
