package render

import (
	"io"
	"slices"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/output"
)

// writeMarkdown writes a pull-request comment: the summary and one row per check and
// fix in view, every finding (one row for those a check words alike) and their evidence in
// collapsed <details> blocks, all within what GitHub takes in a comment (markdownBudget; -o
// json keeps what does not fit).
func (p Preflight) writeMarkdown(w io.Writer) error {
	rep := p.Report
	var b strings.Builder
	output.Fprintf(&b, "### mvpctl preflight: %s (%s)\n\n", rep.Verdict.Result, p.verdictExit(rep.Verdict))
	writeProvisionalMarkdown(&b, rep.Provisional)
	for _, a := range rep.Assumptions {
		output.Fprintf(&b, "**Assumed:** %s\n\n", a)
	}
	for _, a := range rep.Stated {
		output.Fprintf(&b, "**Stated:** %s\n\n", a)
	}
	output.Fprintf(&b, "**%s**\n\n", p.resultLine())
	if l := atRiskLine(rep.Simulation); l != "" {
		output.Fprintf(&b, "%s\n\n", l)
	}
	output.Fprintf(&b, "%s\n\n", rep.CheckedLine())
	if l := stepsLine(rep); l != "" {
		output.Fprintf(&b, "%s\n\n", l)
	}
	for _, k := range rep.Scenario.Kept {
		output.Fprintf(&b, "Kept: %s\n\n", k)
	}
	if len(rep.Findings) == 0 {
		b.WriteString("No findings.\n")
	} else {
		var rows [][]string
		for _, g := range fixGroups(rep.Findings) {
			rows = append(rows, []string{g.check + " " + g.name, g.severities(), g.what(), g.hint})
		}
		if err := output.MarkdownTable(&b, []string{"Check", "Findings", "For", "Fix"}, rows); err != nil {
			return err
		}
		// Findings that share a check, a severity and a reason (findingGroups) share a row
		// that lists their subjects, comma-separated (a cell is one line).
		rows = nil
		for _, g := range findingGroups(rep.Findings) {
			rows = append(rows, []string{g.check, string(g.severity), g.groupSubjects(), g.message})
		}
		var evidence []string
		for _, f := range rep.Findings {
			for _, e := range f.Evidence {
				if !slices.Contains(evidence, e) {
					evidence = append(evidence, e)
				}
			}
		}
		output.Fprintf(&b, "\n<details><summary>%d finding(s)</summary>\n\n", len(rep.Findings))
		mdTableWithin(&b, []string{"Check", "Severity", "Subject", "Finding"}, rows, "finding(s)")
		output.Fprintf(&b, "\n</details>\n\n<details><summary>Evidence (%d line(s))</summary>\n\n", len(evidence))
		for i, e := range evidence {
			if b.Len()+len(e) > markdownBudget {
				output.Fprintf(&b, "- … %d more line(s): `-o json` has them all\n", len(evidence)-i)
				break
			}
			output.Fprintf(&b, "- %s\n", e) // a newline in e is escaped, never a line break
		}
		b.WriteString("\n</details>\n")
	}
	p.writeObjectsMarkdown(&b)
	if len(rep.Accepted) > 0 {
		var rows [][]string
		for _, a := range rep.Accepted {
			rows = append(rows, []string{a.Check + " " + a.Name, string(a.Severity), a.Subject, a.Message, a.AcceptedBy.Source, acceptedWhy(a.AcceptedBy)})
		}
		output.Fprintf(&b, "\n<details><summary>Accepted (baseline): %d, not counted in the result</summary>\n\n", len(rep.Accepted))
		mdTableWithin(&b, []string{"Check", "Severity", "Subject", "Finding", "Accepted by", "Reason"}, rows, "accepted finding(s)")
		b.WriteString("\n</details>\n")
	}
	if len(rep.StaleAccepts) > 0 {
		output.Fprintf(&b, "\n#### Stale: %d accept rule(s) match no finding: remove them\n\n", len(rep.StaleAccepts))
		mdTableWithin(&b, []string{"Rule", "Source", "Reason"}, staleRows(rep), "stale rule(s)")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownBudget is the size a preflight comment stays under: GitHub refuses a comment over
// 65,536 characters, and a job summary is cut at 1 MiB; the margin is for what a CI step adds.
const markdownBudget = 60000

// mdTableWithin writes the rows of a markdown table that fit in markdownBudget, then says how
// many did not.
func mdTableWithin(b *strings.Builder, headers []string, rows [][]string, what string) {
	room := markdownBudget - b.Len()
	n := 0
	for _, r := range rows {
		size := 2
		for _, c := range r {
			size += len(c) + 3 + 4*(strings.Count(c, "|")+strings.Count(c, "<")+strings.Count(c, "\n")) // escapes grow a cell
		}
		if room -= size; room < 0 {
			break
		}
		n++
	}
	_ = output.MarkdownTable(b, headers, rows[:n]) // a strings.Builder does not fail
	if n < len(rows) {
		output.Fprintf(b, "\n… %d more %s: `-o json` lists them all\n", len(rows)-n, what)
	}
}
