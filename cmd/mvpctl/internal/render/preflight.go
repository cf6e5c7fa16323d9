package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/diagram"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/preflight"
	"github.com/mvpctl/mvpctl/pkg/simulate"
)

// Preflight prints a preflight report, also for CI: JUnit for test dashboards, markdown for
// a pull-request comment.
type Preflight struct {
	Report *preflight.Report
	// ExitCode is the exit code of a verdict's exit class (the command's one exit map): the
	// reports say how the run ends.
	ExitCode func(preflight.Verdict) int
	// Baseline is the file --write-baseline writes: the run then exits 0, which the result
	// says, with how a run without that baseline would end.
	Baseline string
}

func (w Preflight) Object() any { return w.Report }

func (w Preflight) WriteText(out io.Writer, o output.Options) error {
	return w.writeTable(out, o)
}

// WriteMermaid and WriteDOT draw the rehearsed upgrade as a timeline with each step's 404/503
// boxes (the simulation behind the findings).
func (w Preflight) WriteMermaid(out io.Writer) error {
	return diagram.Timeline(w.simulation(), "mvpctl preflight").WriteMermaid(out)
}

func (w Preflight) WriteDOT(out io.Writer) error {
	return diagram.Timeline(w.simulation(), "mvpctl preflight").WriteDOT(out)
}

func (w Preflight) simulation() *simulate.Simulation {
	if w.Report.Simulation == nil {
		return &simulate.Simulation{}
	}
	return w.Report.Simulation
}

// WriteMarkdown writes a pull-request comment (writeMarkdown).
func (w Preflight) WriteMarkdown(out io.Writer) error {
	return w.writeMarkdown(out)
}

func (w Preflight) WriteJUnit(out io.Writer) error {
	return output.JUnit(out, "mvpctl preflight", w.junitCases())
}

// resultLine is the summary a reader needs first: the verdict's result and its
// counts, the accepted risks (when there are) and stale accept rules, what else the result rests on, and how
// the run ends at --fail-on.
func (w Preflight) resultLine() string {
	rep := w.Report
	s := rep.Summary
	line := fmt.Sprintf("Result: %s (%d blocking, %d warning, %d info", rep.Verdict.Result, s.Blocking, s.Warning, s.Info)
	if s.Accepted > 0 {
		line += fmt.Sprintf("; accepted (baseline): %d", s.Accepted)
	}
	if s.Stale > 0 {
		line += fmt.Sprintf("; stale accept rules: %d", s.Stale)
	}
	for _, c := range rep.Verdict.Caveats() {
		line += "; " + c
	}
	if w.Baseline != "" {
		return line + fmt.Sprintf("): exit 0: --write-baseline %s accepts these findings (without it: %s)", w.Baseline, w.verdictExit(rep.Verdict))
	}
	return line + "): " + w.verdictExit(rep.Verdict)
}

// verdictExit is how a run ends, as its reports say it (VerdictExit).
func (w Preflight) verdictExit(v preflight.Verdict) string {
	return VerdictExit(v, w.ExitCode(v))
}

// VerdictExit is how a run ends, as its reports and its error say it: "exit 2 at --fail-on
// warning".
func VerdictExit(v preflight.Verdict, code int) string {
	return fmt.Sprintf("exit %d at --fail-on %s", code, v.FailOn)
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

// writeTable is the text output: the summary, the findings (a group per reason, its subjects
// under it and its fix; -o wide a row per finding with its fix), the accepted findings, the stale accept rules and the proxied requests of the replayed traffic.
func (p Preflight) writeTable(w io.Writer, o output.Options) error {
	rep := p.Report
	noHeaders := o.NoHeaders
	p.Summary(w, o.Wide())
	switch {
	case len(rep.Findings) > 0 && o.Wide():
		headers, rows := findingsTable(rep.Findings, true)
		fmt.Fprintln(w)
		if err := output.Table(w, headers, rows, noHeaders); err != nil {
			return err
		}
	case len(rep.Findings) > 0:
		writeGroups(w, rep.Findings)
	}
	if err := p.writeObjectsTable(w, o); err != nil {
		return err
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
		if err := Proxied(w, t.Proxied, noHeaders); err != nil {
			return err
		}
	}
	return nil
}

// Summary prints what a reader needs first: what was assumed or stated, the result, what is
// at risk, what was checked and its steps (which findings refer to by number).
func (p Preflight) Summary(w io.Writer, wide bool) {
	rep := p.Report
	writeProvisional(w, rep.Provisional, wide)
	writeAssumedStated(w, rep.RestsOn)
	output.Fprintf(w, "%s\n", p.resultLine())
	if l := atRiskLine(rep.Simulation); l != "" {
		output.Fprintf(w, "%s\n", l)
	}
	output.Fprintf(w, "%s\n", rep.CheckedLine())
	if l := stepsLine(rep); l != "" {
		output.Fprintf(w, "%s\n", l)
	}
	for _, k := range rep.Scenario.Kept {
		output.Fprintf(w, "Kept: %s\n", k)
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
