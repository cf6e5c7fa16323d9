// Package print writes reports: kubectl-style tables, JSON and YAML. It knows nothing of
// Kubernetes routing; commands turn their reports into rows and hand them over.
package print

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"sigs.k8s.io/yaml"
)

// Output formats.
const (
	FormatTable = "table"
	FormatWide  = "wide"
	FormatJSON  = "json"
	FormatYAML  = "yaml"
)

// CheckFormat returns an error naming the allowed formats when f is not one of them.
func CheckFormat(f string, allowed ...string) error {
	for _, a := range allowed {
		if f == a {
			return nil
		}
	}
	return fmt.Errorf("unknown output format %q: want one of %s", f, strings.Join(allowed, "|"))
}

// Structured reports whether f is a structured (machine-readable) format.
func Structured(f string) bool { return f == FormatJSON || f == FormatYAML }

// Object writes v as indented JSON or as YAML.
func Object(w io.Writer, v any, format string) error {
	switch format {
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
	case FormatYAML:
		b, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	return fmt.Errorf("format %q is not structured", format)
}

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
