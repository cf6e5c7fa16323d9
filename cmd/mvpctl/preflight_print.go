package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/diagram"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/preflight"
	"github.com/mvpctl/mvpctl/pkg/simulate"
)

// preflightWriter prints a preflight report, also for CI: JUnit for test dashboards,
// markdown for a pull-request comment.
type preflightWriter struct{ rep *preflight.Report }

func (w preflightWriter) Object() any { return w.rep }

func (w preflightWriter) WriteText(out io.Writer, o output.Options) error {
	return printPreflightTable(out, w.rep, o)
}

// WriteMermaid and WriteDOT draw the rehearsed upgrade as a timeline with each step's 404/503
// boxes (the simulation behind the findings).
func (w preflightWriter) WriteMermaid(out io.Writer) error {
	return diagram.Timeline(w.simulation(), "mvpctl preflight").WriteMermaid(out)
}

func (w preflightWriter) WriteDOT(out io.Writer) error {
	return diagram.Timeline(w.simulation(), "mvpctl preflight").WriteDOT(out)
}

func (w preflightWriter) simulation() *simulate.Simulation {
	if w.rep.Simulation == nil {
		return &simulate.Simulation{}
	}
	return w.rep.Simulation
}

func (w preflightWriter) WriteMarkdown(out io.Writer) error {
	return printPreflightMarkdown(out, w.rep)
}

func (w preflightWriter) WriteJUnit(out io.Writer) error {
	return output.JUnit(out, "mvpctl preflight", junitCases(w.rep))
}

// preflightResultLine is the summary a reader needs first: the verdict's result and its
// counts, the accepted risks and stale accept rules, what else the result rests on, and how
// the run ends at --fail-on.
func preflightResultLine(rep *preflight.Report) string {
	s := rep.Summary
	line := fmt.Sprintf("Result: %s (%d blocking, %d warning, %d info; accepted (baseline): %d", rep.Verdict.Result, s.Blocking, s.Warning, s.Info, s.Accepted)
	if s.Stale > 0 {
		line += fmt.Sprintf("; stale accept rules: %d", s.Stale)
	}
	for _, c := range rep.Verdict.Caveats() {
		line += "; " + c
	}
	return line + "): " + verdictExit(rep.Verdict)
}

// verdictExit is how a run ends, as its reports say it: "exit 2 at --fail-on warning".
func verdictExit(v preflight.Verdict) string {
	return fmt.Sprintf("exit %d at --fail-on %s", verdictExitCode(v), v.FailOn)
}

// atRiskLine counts the GVRs of the rehearsal with a 404/503 window, and those the target
// removes, whether or not a finding about them was accepted.
func atRiskLine(sim *simulate.Simulation) string {
	if sim == nil {
		return ""
	}
	gvrs, steps := map[string]bool{}, []int{}
	for _, r := range sim.AtRisk {
		gvrs[r.GVR] = true
		steps = append(steps, r.StepN)
	}
	line := "At risk: no GVR served somewhere answers 404 or 503 at any step"
	if len(gvrs) > 0 {
		line = fmt.Sprintf("At risk: %d GVR(s) answer 404 or 503 on some apiserver at %s", len(gvrs), simulate.StepsText(steps))
	}
	if n := len(sim.Removed); n > 0 {
		line += fmt.Sprintf("; %d GVR(s) removed by the target", n)
	}
	return line
}

func printPreflightTable(w io.Writer, rep *preflight.Report, o output.Options) error {
	noHeaders := o.NoHeaders
	printPreflightSummary(w, rep, o.Wide())
	if len(rep.Findings) > 0 {
		headers, rows := findingsTable(rep.Findings, o.Wide())
		fmt.Fprintln(w)
		if err := output.Table(w, headers, rows, noHeaders); err != nil {
			return err
		}
		if !o.Wide() {
			var fixes [][]string
			for _, g := range fixGroups(rep.Findings) {
				fixes = append(fixes, []string{g.check, g.what(), g.hint})
			}
			fmt.Fprintln(w, "\nFIX (once per check and fix; -o wide puts it on every row):")
			if err := output.Table(w, []string{"ID", "FOR", "FIX"}, fixes, noHeaders); err != nil {
				return err
			}
		}
	}
	if len(rep.Accepted) > 0 {
		var rows [][]string
		for _, a := range rep.Accepted {
			rows = append(rows, []string{a.Check, string(a.Severity), a.Subject, a.AcceptedBy.Source, acceptedWhy(a.AcceptedBy)})
		}
		output.Fprintf(w, "\nACCEPTED (baseline): %d, not counted in the result\n", len(rep.Accepted))
		if err := output.Table(w, []string{"ID", "SEVERITY", "SUBJECT", "ACCEPTED-BY", "REASON"}, rows, noHeaders); err != nil {
			return err
		}
	}
	if len(rep.StaleAccepts) > 0 {
		output.Fprintf(w, "\nSTALE: %d accept rule(s) match no finding: remove them\n", len(rep.StaleAccepts))
		if err := output.Table(w, []string{"RULE", "SOURCE", "REASON"}, staleRows(rep), noHeaders); err != nil {
			return err
		}
	}
	if t := rep.Traffic; t != nil && t.Proxied != nil {
		output.Fprintf(w, "\nTRAFFIC %s (%s):\n", t.Source, t.Format)
		if err := printProxied(w, t.Proxied, noHeaders); err != nil {
			return err
		}
	}
	return nil
}

// printPreflightSummary prints what a reader needs first: what was assumed or stated, the
// result, what is at risk, what was checked and its steps (which findings refer to by number).
func printPreflightSummary(w io.Writer, rep *preflight.Report, wide bool) {
	printProvisional(w, rep.Provisional, wide)
	for _, a := range rep.Assumptions {
		output.Fprintf(w, "ASSUMED %s\n", a)
	}
	for _, a := range rep.Stated {
		output.Fprintf(w, "STATED %s\n", a)
	}
	output.Fprintf(w, "%s\n", preflightResultLine(rep))
	if l := atRiskLine(rep.Simulation); l != "" {
		output.Fprintf(w, "%s\n", l)
	}
	output.Fprintf(w, "%s\n", rep.CheckedLine())
	if l := stepsLine(rep); l != "" {
		output.Fprintf(w, "%s\n", l)
	}
}

// staleRows are the rows of the stale accept rules: rule, source, date and reason.
func staleRows(rep *preflight.Report) [][]string {
	var rows [][]string
	for _, r := range rep.StaleAccepts {
		rows = append(rows, []string{r.Key(), r.Source, acceptedWhy(r)})
	}
	return rows
}

// acceptedWhy is a rule's date and reason, as printed.
func acceptedWhy(r preflight.AcceptRule) string {
	why := strings.TrimSpace(r.Date + " " + r.Reason)
	if why == "" {
		return "<none>"
	}
	return why
}

// printPreflightMarkdown writes a pull-request comment: the summary and one row per check and
// fix in view, every finding (one row for those a check words alike) and their evidence in
// collapsed <details> blocks, all within what GitHub takes in a comment (markdownBudget; -o
// json keeps what does not fit).
func printPreflightMarkdown(w io.Writer, rep *preflight.Report) error {
	var b strings.Builder
	output.Fprintf(&b, "### mvpctl preflight: %s (%s)\n\n", rep.Verdict.Result, verdictExit(rep.Verdict))
	printProvisionalMarkdown(&b, rep.Provisional)
	for _, a := range rep.Assumptions {
		output.Fprintf(&b, "**Assumed:** %s\n\n", a)
	}
	for _, a := range rep.Stated {
		output.Fprintf(&b, "**Stated:** %s\n\n", a)
	}
	output.Fprintf(&b, "**%s**\n\n", preflightResultLine(rep))
	if l := atRiskLine(rep.Simulation); l != "" {
		output.Fprintf(&b, "%s\n\n", l)
	}
	output.Fprintf(&b, "%s\n\n", rep.CheckedLine())
	if l := stepsLine(rep); l != "" {
		output.Fprintf(&b, "%s\n\n", l)
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
		// Findings of a check with the same severity and message (which names no subject)
		// share a row that lists their subjects.
		rows = nil
		row := map[string]int{}
		var evidence []string
		for _, f := range rep.Findings {
			key := f.Check + "\x00" + string(f.Severity) + "\x00" + f.Message
			if i, ok := row[key]; ok {
				rows[i][2] += "\n" + f.Subject
			} else {
				row[key] = len(rows)
				rows = append(rows, []string{f.Check, string(f.Severity), f.Subject, f.Message})
			}
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
			output.Fprintf(&b, "- %s\n", strings.ReplaceAll(e, "\n", " "))
		}
		b.WriteString("\n</details>\n")
	}
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
			size += len(c) + 3 + 4*strings.Count(c, "|") + 4*strings.Count(c, "\n") // escapes grow a cell
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

// junitCases makes one case per finding, failing when the finding is at or above --fail-on,
// one skipped case per accepted finding and per stale accept rule, one passing case per check
// that found nothing, so dashboards show what was checked and accepted as well as what failed,
// and one case for the verdict, failing when the run fails: the failures are never more, nor
// fewer, than the exit code says. A case's name starts with the finding's key, ID:SUBJECT,
// which is what --ignore takes.
func junitCases(rep *preflight.Report) []output.JUnitCase {
	found := map[string]bool{}
	v := rep.Verdict
	cases := []output.JUnitCase{verdictCase(v)}
	name := func(f preflight.Finding) string {
		if f.Step != "" {
			return f.Key() + " at step " + f.Step
		}
		return f.Key()
	}
	for _, f := range rep.Findings {
		found[f.Check] = true
		c := output.JUnitCase{Name: name(f), ClassName: f.Name}
		if v.FailsOn(f.Severity) {
			c.FailureType, c.Message, c.Detail = string(f.Severity), f.Message, "evidence:\n"+strings.Join(f.Evidence, "\n")+"\nfix: "+f.Hint
		} else {
			c.Name += fmt.Sprintf(" (%s, below --fail-on %s: %s)", f.Severity, v.FailOn, f.Message)
		}
		cases = append(cases, c)
	}
	for _, a := range rep.Accepted {
		found[a.Check] = true
		cases = append(cases, output.JUnitCase{Name: name(a.Finding), ClassName: a.Name,
			Skipped: fmt.Sprintf("accepted by %s (%s): %s: %s", a.AcceptedBy.Source, acceptedWhy(a.AcceptedBy), a.Severity, a.Message)})
	}
	for _, r := range rep.StaleAccepts {
		cases = append(cases, output.JUnitCase{Name: "stale accept rule " + r.Key(), ClassName: "accept-rule",
			Skipped: fmt.Sprintf("%s matches no finding: remove it", r.Source)})
	}
	for _, c := range rep.Checks {
		if !found[c.ID] {
			cases = append(cases, output.JUnitCase{Name: c.ID + " " + c.Title, ClassName: c.Name})
		}
	}
	return cases
}

// verdictCase is the verdict as a JUnit case: failing when the run fails at --fail-on.
func verdictCase(v preflight.Verdict) output.JUnitCase {
	c := output.JUnitCase{Name: fmt.Sprintf("verdict: %s (%s)", v.Result, verdictExit(v)), ClassName: "verdict"}
	if v.Fails() {
		c.FailureType, c.Message, c.Detail = string(v.Result), v.Reason, strings.Join(v.Caveats(), "\n")
	}
	return c
}
