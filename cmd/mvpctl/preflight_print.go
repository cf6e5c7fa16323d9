package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/diagram"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/simulate"
)

// preflightWriter prints a preflight report, also for CI: JUnit for test dashboards,
// markdown for a pull-request comment.
type preflightWriter struct{ rep *simulate.PreflightReport }

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

// preflightResultLine is the summary a reader needs first: the result and its counts, the
// accepted risks and stale accept rules.
func preflightResultLine(rep *simulate.PreflightReport) string {
	s := rep.Summary
	line := fmt.Sprintf("Result: %s (%d blocking, %d warning, %d info; accepted (baseline): %d", s.Result, s.Blocking, s.Warning, s.Info, s.Accepted)
	if s.Stale > 0 {
		line += fmt.Sprintf("; stale accept rules: %d", s.Stale)
	}
	return line + ")"
}

// atRiskLine counts the GVRs of the rehearsal with a 404/503 window, and those the target
// removes, whether or not a finding about them was accepted.
func atRiskLine(sim *simulate.Simulation) string {
	if sim == nil {
		return ""
	}
	gvrs, steps := map[string]bool{}, []string{}
	for _, r := range sim.AtRisk {
		gvrs[r.GVR] = true
		if s := fmt.Sprintf("%d (%s)", r.StepN, r.Step); len(steps) == 0 || steps[len(steps)-1] != s {
			steps = append(steps, s)
		}
	}
	line := "At risk: no GVR served somewhere answers 404 or 503 at any step"
	if len(gvrs) > 0 {
		line = fmt.Sprintf("At risk: %d GVR(s) answer 404 or 503 on some apiserver at step(s) %s", len(gvrs), strings.Join(steps, ", "))
	}
	if n := len(sim.Removed); n > 0 {
		line += fmt.Sprintf("; %d GVR(s) removed by the target", n)
	}
	return line
}

func printPreflightTable(w io.Writer, rep *simulate.PreflightReport, o output.Options) error {
	noHeaders := o.NoHeaders
	printProvisional(w, rep.Provisional)
	for _, a := range rep.Assumptions {
		fmt.Fprintf(w, "ASSUMED %s\n", a)
	}
	for _, a := range rep.Stated {
		fmt.Fprintf(w, "STATED %s\n", a)
	}
	fmt.Fprintln(w, preflightResultLine(rep))
	if l := atRiskLine(rep.Simulation); l != "" {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w, rep.CheckedLine())
	if len(rep.Findings) > 0 {
		headers, rows := findingsTable(rep.Findings, o.Wide())
		fmt.Fprintln(w)
		if err := output.Table(w, headers, rows, noHeaders); err != nil {
			return err
		}
	}
	if len(rep.Accepted) > 0 {
		var rows [][]string
		for _, a := range rep.Accepted {
			rows = append(rows, []string{a.Check, string(a.Severity), a.Subject, a.AcceptedBy.Source, acceptedWhy(a.AcceptedBy)})
		}
		fmt.Fprintf(w, "\nACCEPTED (baseline): %d, not counted in the result\n", len(rep.Accepted))
		if err := output.Table(w, []string{"ID", "SEVERITY", "SUBJECT", "ACCEPTED-BY", "REASON"}, rows, noHeaders); err != nil {
			return err
		}
	}
	if len(rep.StaleAccepts) > 0 {
		fmt.Fprintf(w, "\nSTALE: %d accept rule(s) match no finding: remove them\n", len(rep.StaleAccepts))
		if err := output.Table(w, []string{"RULE", "SOURCE", "REASON"}, staleRows(rep), noHeaders); err != nil {
			return err
		}
	}
	if t := rep.Traffic; t != nil && t.Proxied != nil {
		fmt.Fprintf(w, "\nTRAFFIC %s (%s):\n", t.Source, t.Format)
		if err := printProxied(w, t.Proxied, noHeaders); err != nil {
			return err
		}
	}
	return nil
}

// staleRows are the rows of the stale accept rules: rule, source, date and reason.
func staleRows(rep *simulate.PreflightReport) [][]string {
	var rows [][]string
	for _, r := range rep.StaleAccepts {
		rows = append(rows, []string{r.Key(), r.Source, acceptedWhy(r)})
	}
	return rows
}

// acceptedWhy is a rule's date and reason, as printed.
func acceptedWhy(r simulate.AcceptRule) string {
	why := strings.TrimSpace(r.Date + " " + r.Reason)
	if why == "" {
		return "<none>"
	}
	return why
}

func printPreflightMarkdown(w io.Writer, rep *simulate.PreflightReport) error {
	fmt.Fprintf(w, "### mvpctl preflight: %s\n\n", rep.Summary.Result)
	printProvisionalMarkdown(w, rep.Provisional)
	for _, a := range rep.Assumptions {
		fmt.Fprintf(w, "**Assumed:** %s\n\n", a)
	}
	for _, a := range rep.Stated {
		fmt.Fprintf(w, "**Stated:** %s\n\n", a)
	}
	fmt.Fprintf(w, "**%s**\n\n", preflightResultLine(rep))
	if l := atRiskLine(rep.Simulation); l != "" {
		fmt.Fprintf(w, "%s\n\n", l)
	}
	fmt.Fprintf(w, "%s\n\n", rep.CheckedLine())
	if len(rep.Findings) == 0 {
		fmt.Fprintln(w, "No findings.")
	} else {
		var rows [][]string
		for _, f := range rep.Findings {
			rows = append(rows, []string{f.Check + " " + f.Name, string(f.Severity), f.Subject, f.Message, strings.Join(f.Evidence, "\n"), f.Hint})
		}
		if err := output.MarkdownTable(w, []string{"Check", "Severity", "Subject", "Finding", "Evidence", "Fix"}, rows); err != nil {
			return err
		}
	}
	if len(rep.Accepted) > 0 {
		var rows [][]string
		for _, a := range rep.Accepted {
			rows = append(rows, []string{a.Check + " " + a.Name, string(a.Severity), a.Subject, a.Message, a.AcceptedBy.Source, acceptedWhy(a.AcceptedBy)})
		}
		fmt.Fprintf(w, "\n#### Accepted (baseline): %d, not counted in the result\n\n", len(rep.Accepted))
		if err := output.MarkdownTable(w, []string{"Check", "Severity", "Subject", "Finding", "Accepted by", "Reason"}, rows); err != nil {
			return err
		}
	}
	if len(rep.StaleAccepts) > 0 {
		fmt.Fprintf(w, "\n#### Stale: %d accept rule(s) match no finding: remove them\n\n", len(rep.StaleAccepts))
		return output.MarkdownTable(w, []string{"Rule", "Source", "Reason"}, staleRows(rep))
	}
	return nil
}

// junitCases makes one failing case per finding, one skipped case per accepted finding and
// per stale accept rule, and one passing case per check that found nothing, so dashboards
// show what was checked and accepted as well as what failed. A case's name starts with the
// finding's key, ID:SUBJECT, which is what --ignore takes.
func junitCases(rep *simulate.PreflightReport) []output.JUnitCase {
	found := map[string]bool{}
	var cases []output.JUnitCase
	name := func(f simulate.Finding) string {
		if f.Step != "" {
			return f.Key() + " at step " + f.Step
		}
		return f.Key()
	}
	for _, f := range rep.Findings {
		found[f.Check] = true
		cases = append(cases, output.JUnitCase{Name: name(f), ClassName: f.Name, FailureType: string(f.Severity),
			Message: f.Message, Detail: "evidence:\n" + strings.Join(f.Evidence, "\n") + "\nfix: " + f.Hint})
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
