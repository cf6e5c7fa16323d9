package main

import (
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/preflight"
)

// preflightFormats are preflight's -o formats: the findings table and its wide columns, the
// forms a script reads (name, jsonpath, csv), then the documents for CI.
func preflightFormats() *output.Flags {
	return tableFlags(output.FormatJSON, output.FormatYAML, output.FormatJUnit, output.FormatMarkdown, output.FormatMermaid, output.FormatDOT)
}

// Table is the findings, as the text output's table: a row per finding.
func (w preflightWriter) Table(o output.Options) ([]string, [][]string) {
	return findingsTable(w.rep.Findings, o.Wide())
}

// findingsTable is a row per finding: its ID, severity, subject and message; wide adds the
// step of the rehearsal it was found at, the check's name and the fix (the evidence, several
// lines, is in -o json, yaml and markdown).
func findingsTable(findings []preflight.Finding, wide bool) ([]string, [][]string) {
	headers := []string{"ID", "SEVERITY", "SUBJECT", "MESSAGE"}
	if wide {
		headers = append(headers, "STEP", "CHECK", "FIX")
	}
	rows := [][]string{}
	for _, f := range findings {
		row := []string{f.Check, string(f.Severity), f.Subject, f.Message}
		if wide {
			row = append(row, f.Step, f.Name, f.Hint)
		}
		rows = append(rows, row)
	}
	return headers, rows
}

// Names are the findings' keys, ID:SUBJECT (what --ignore takes).
func (w preflightWriter) Names() []string {
	names := make([]string, len(w.rep.Findings))
	for i, f := range w.rep.Findings {
		names[i] = f.Key()
	}
	return names
}
