package main

import (
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/simulate"
)

// preflightFormats are preflight's -o formats: the findings table and its forms (wide, name,
// jsonpath, csv), then the documents for CI.
func preflightFormats() *output.Flags {
	return tableFlags(output.FormatJSON, output.FormatYAML, output.FormatJUnit, output.FormatMarkdown, output.FormatMermaid, output.FormatDOT)
}

// Table is the findings: a row per finding; wide adds the step and the fix.
func (w preflightWriter) Table(o output.Options) ([]string, [][]string) {
	return findingsTable(w.rep.Findings, o)
}

func findingsTable(findings []simulate.Finding, o output.Options) ([]string, [][]string) {
	headers := []string{"CHECK", "SEVERITY", "SUBJECT", "MESSAGE"}
	if o.Wide() {
		headers = append(headers, "STEP", "HINT")
	}
	rows := [][]string{}
	for _, f := range findings {
		row := []string{f.Check, string(f.Severity), f.Subject, f.Message}
		if o.Wide() {
			row = append(row, f.Step, f.Hint)
		}
		rows = append(rows, row)
	}
	return headers, rows
}

// Names are the findings as CHECK/SUBJECT, one per finding.
func (w preflightWriter) Names() []string {
	names := make([]string, len(w.rep.Findings))
	for i, f := range w.rep.Findings {
		names[i] = f.Check + "/" + f.Subject
	}
	return names
}
