package main

import (
	"github.com/mvpctl/mvpctl/pkg/output"
)

// preflightFormats are preflight's -o formats: the findings table and the forms a script
// reads (name, jsonpath, csv), then the documents for CI. No wide: the findings table has no
// more columns to show (-o json has the evidence and the fix).
func preflightFormats() *output.Flags {
	return output.NewFlags(output.FormatTable, output.FormatName, output.FormatJSONPath, output.FormatCSV,
		output.FormatJSON, output.FormatYAML, output.FormatJUnit, output.FormatMarkdown, output.FormatMermaid, output.FormatDOT)
}

// Table is the findings, as the text output's table: a row per finding.
func (w preflightWriter) Table(output.Options) ([]string, [][]string) {
	rows := [][]string{}
	for _, f := range w.rep.Findings {
		rows = append(rows, []string{f.Check, string(f.Severity), f.Subject, f.Message})
	}
	return []string{"CHECK", "SEVERITY", "SUBJECT", "MESSAGE"}, rows
}

// Names are the findings' keys, ID:SUBJECT.
func (w preflightWriter) Names() []string {
	names := make([]string, len(w.rep.Findings))
	for i, f := range w.rep.Findings {
		names[i] = f.Check + ":" + f.Subject
	}
	return names
}
