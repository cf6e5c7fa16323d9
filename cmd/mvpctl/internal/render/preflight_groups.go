package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/preflight"
)

// findingGroup is the findings that share a check, a severity, a reason (a message, which
// names no subject) and a fix: the text and markdown reports say the reason once and list
// the subjects under it (-o json, yaml, junit and wide keep a record per finding).
type findingGroup struct {
	check, name string
	severity    preflight.Severity
	message     string
	hint        string
	subjects    []string
}

// findingGroups groups the findings in the order they come.
func findingGroups(findings []preflight.Finding) []*findingGroup {
	var out []*findingGroup
	index := map[[4]string]*findingGroup{}
	for _, f := range findings {
		key := [4]string{f.Check, string(f.Severity), f.Message, f.Hint}
		g := index[key]
		if g == nil {
			g = &findingGroup{check: f.Check, name: f.Name, severity: f.Severity, message: f.Message, hint: f.Hint}
			index[key] = g
			out = append(out, g)
		}
		g.subjects = append(g.subjects, f.Subject)
	}
	return out
}

// writeGroups prints each group: its check, severity and count with the reason, the
// subjects packed to the width under it, and its fix.
func writeGroups(w io.Writer, findings []preflight.Finding) {
	width := output.LineWidth(w)
	for _, g := range findingGroups(findings) {
		fmt.Fprintln(w)
		output.Fprintf(w, "%s %s ×%d: %s\n", g.check, g.severity, len(g.subjects), g.message)
		for _, line := range packWords(g.subjects, subjectIndent, width) {
			output.Fprintf(w, "%s\n", line)
		}
		if g.hint != "" {
			output.Fprintf(w, "  fix: %s\n", g.hint)
		}
	}
}

// subjectIndent is how far the subjects of a group are indented, under its reason.
const subjectIndent = "    "

// packWords packs words, three spaces apart, into lines of at most width columns that begin
// with indent, or one word a line when width is 0 (not fitted).
func packWords(words []string, indent string, width int) []string {
	var lines []string
	line := ""
	for _, w := range words {
		w = output.Cell(w)
		if line != "" && (width <= 0 || output.DisplayWidth(line)+3+output.DisplayWidth(w) > width) {
			lines = append(lines, line)
			line = ""
		}
		if line == "" {
			line = indent + w
			continue
		}
		line += "   " + w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// groupSubjects lists a group's subjects in one markdown cell, comma-separated: a cell is one
// line (a newline in a value is escaped, never a line break).
func (g *findingGroup) groupSubjects() string { return strings.Join(g.subjects, ", ") }
