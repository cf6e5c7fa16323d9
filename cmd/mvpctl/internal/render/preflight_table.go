package render

import (
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/preflight"
)

// Table is the findings, as the text output's table: a row per finding.
func (w Preflight) Table(o output.Options) ([]string, [][]string) {
	return findingsTable(w.Report.Findings, o.Wide())
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
func (w Preflight) Names() []string {
	names := make([]string, len(w.Report.Findings))
	for i, f := range w.Report.Findings {
		names[i] = f.Key()
	}
	return names
}
