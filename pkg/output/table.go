package output

import (
	"bytes"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Table writes rows under headers the way kubectl does: no borders, no separator lines,
// left-aligned columns three spaces apart, no trailing blanks. Headers must already be
// uppercase without spaces (NAME, KAS-A). Empty cells print as <none>.
func Table(w io.Writer, headers []string, rows [][]string, noHeaders bool) error {
	var buf bytes.Buffer
	pad := tw.CellPadding{Global: tw.Padding{Left: "", Right: "   ", Overwrite: true}}
	left := tw.CellAlignment{Global: tw.AlignLeft}
	t := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenRows: tw.Off, BetweenColumns: tw.Off, ShowHeader: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.Off},
			},
		})),
		tablewriter.WithConfig(tablewriter.Config{
			Header: tw.CellConfig{Formatting: tw.CellFormatting{AutoFormat: tw.Off, AutoWrap: tw.WrapNone}, Alignment: left, Padding: pad},
			Row:    tw.CellConfig{Formatting: tw.CellFormatting{AutoWrap: tw.WrapNone}, Alignment: left, Padding: pad},
		}),
	)
	if !noHeaders {
		t.Header(headers)
	}
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			if c == "" {
				c = "<none>"
			}
			cells[i] = c
		}
		if err := t.Append(cells); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
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
