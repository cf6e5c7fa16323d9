package output

import (
	"bytes"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
)

// Table writes rows under headers the way kubectl does: no borders, no separator lines,
// left-aligned columns three spaces apart, no trailing blanks. Headers must already be
// uppercase without spaces (NAME, KAS-A). Empty cells print as <none>.
func Table(w io.Writer, headers []string, rows [][]string, noHeaders bool) error {
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
	t.SetTablePadding("   ")
	t.SetNoWhiteSpace(true)
	if !noHeaders {
		t.SetHeader(headers)
	}
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			if c == "" {
				c = "<none>"
			}
			cells[i] = c
		}
		t.Append(cells)
	}
	t.Render()
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		if line == "" {
			continue
		}
		if _, err := io.WriteString(w, strings.TrimRight(line, " \n")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// Header turns a name into a table header: uppercase, spaces and underscores as dashes.
func Header(name string) string {
	return strings.ToUpper(strings.NewReplacer(" ", "-", "_", "-").Replace(name))
}
