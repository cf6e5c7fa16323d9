package output

import (
	"bytes"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
)

// Table writes rows under headers the way kubectl does: no borders, no separator lines,
// left-aligned columns three spaces apart, no trailing blanks. Headers must already be
// uppercase without spaces (NAME, KAS-A). Empty cells print as <none>; every cell is Cell'd. tablewriter lays the
// table out (docs/performance.md).
func Table(w io.Writer, headers []string, rows [][]string, noHeaders bool) error {
	cells := make([][]string, len(rows))
	for i, r := range rows {
		cells[i] = make([]string, len(r))
		for j, c := range r {
			if c == "" {
				c = "<none>"
			}
			cells[i][j] = Cell(c)
		}
	}
	if noHeaders {
		headers = nil
	}
	if f, ok := w.(*fitter); ok {
		// a table begins a line: it is written past the fitter, whole (a pipe) or fitted
		f.col, f.spaces = 0, 0
		if f.pipe {
			_, err := f.w.Write(render(headers, cells))
			return err
		}
		fitted, ok := fitColumns(headers, cells, f.width)
		if !ok {
			_, err := w.Write(records(headers, cells, f.width))
			return err
		}
		cells = fitted
	}
	_, err := w.Write(render(headers, cells))
	return err
}

// columnGap is the space between two columns, as kubectl prints it.
const columnGap = "   "

// render is one table of rows (with headers, unless nil), its lines without trailing blanks.
func render(headers []string, rows [][]string) []byte {
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

// Header turns a name into a table header: uppercase, spaces and underscores as dashes.
func Header(name string) string {
	return strings.ToUpper(strings.NewReplacer(" ", "-", "_", "-").Replace(name))
}
