package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mvpctl/mvpctl/pkg/diagram"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/simulate"
)

type preflightOptions struct {
	plan   planFlags
	failOn string
	filter filterFlags
	output *output.Flags
}

func newPreflightCmd(g *globalOptions) *cobra.Command {
	o := &preflightOptions{failOn: string(simulate.FailOnWarning), output: preflightFormats()}
	var checks strings.Builder
	for _, c := range simulate.Checks {
		fmt.Fprintf(&checks, "  %s %-26s %s\n", c.ID, c.Name, c.Title)
	}
	cmd := &cobra.Command{
		Use:   "preflight",
		Short: "CI gate before an upgrade: check the control plane and rehearse the upgrade",
		Long: `Check a control plane before an upgrade: every apiserver reachable and configured for the
Mixed Version Proxy, and — through every step of the upgrade (--to) or scenario — every GVR
that is served somewhere reachable from every apiserver. With --requests or --audit-log, real
traffic is replayed and requests that would fail, or that use APIs the target removes, are
reported. Each finding has a stable check ID, a severity, evidence and a fix hint.

Checks:
` + checks.String() + `
` + commandExitCodes("preflight") + `
--fail-on=blocking exits 0 on warnings; --fail-on=never always exits 0 (unless mvpctl fails).`,
		Example: `  mvpctl preflight --servers a=1.36,b=1.36,c=1.36 --to 1.37
  mvpctl preflight --snapshot cluster.yaml --to 1.37 --audit-log audit.log.gz -o junit > preflight.xml
  mvpctl preflight --to 1.37 -o markdown   # live cluster of the current context`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, g) },
	}
	o.plan.addFlags(cmd.Flags())
	cmd.Flags().StringVar(&o.failOn, "fail-on", o.failOn, "lowest severity that fails the run: "+failOnList())
	o.filter.addFlags(cmd.Flags(), "check only")
	o.output.AddFlags(cmd.Flags())
	return cmd
}

func (o *preflightOptions) run(cmd *cobra.Command, g *globalOptions) error {
	opts, err := o.output.Options(cmd.CommandPath())
	if err != nil {
		return err
	}
	failOn, err := parseFailOn(o.failOn)
	if err != nil {
		return err
	}
	if o.plan.to == "" && o.plan.scenario == "" && len(o.plan.steps) == 0 {
		return errors.New("preflight needs --to VERSION or --scenario FILE (or --step)")
	}
	pl, err := o.plan.load(cmd.Context(), g)
	if err != nil {
		return err
	}
	defer pl.close()
	rep, err := simulate.Preflight(simulate.PreflightInput{Start: pl.start, Steps: pl.steps, Target: o.plan.to,
		Traffic: pl.traffic, TrafficSource: pl.trafficSource, TrafficFormat: pl.trafficFormat})
	if err != nil {
		return err
	}
	if err := requireReplayed(rep.Traffic); err != nil {
		return err
	}
	narrowPreflight(g, rep, o.filter.filter(), pl.start)
	if err := output.Write(g.streams.Out, preflightWriter{rep}, opts); err != nil {
		return err
	}
	return preflightResult(rep, failOn, pl.start)
}

func parseFailOn(s string) (simulate.FailOn, error) {
	for _, f := range simulate.FailOnValues {
		if s == string(f) {
			return f, nil
		}
	}
	return "", fmt.Errorf("--fail-on %q: want one of %s", s, failOnList())
}

func failOnList() string {
	names := make([]string, len(simulate.FailOnValues))
	for i, f := range simulate.FailOnValues {
		names[i] = string(f)
	}
	return strings.Join(names, "|")
}

// preflightWriter prints a preflight report, also for CI: JUnit for test dashboards,
// markdown for a pull-request comment.
type preflightWriter struct{ rep *simulate.PreflightReport }

func (w preflightWriter) Object() any { return w.rep }

func (w preflightWriter) WriteText(out io.Writer, o output.Options) error {
	return printPreflightTable(out, w.rep, o.NoHeaders)
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

func scenarioLine(rep *simulate.PreflightReport) string {
	var servers []string
	for _, s := range rep.Scenario.Servers {
		servers = append(servers, s.Name+"="+s.Version)
	}
	s := "Checked: " + strings.Join(servers, ", ")
	if rep.Scenario.Target != "" {
		s += " → " + rep.Scenario.Target
	}
	s += fmt.Sprintf(" (%d step(s); start: %s", len(rep.Scenario.Steps), rep.Scenario.Start)
	if len(rep.Scenario.Profiles) > 0 {
		s += "; profiles " + strings.Join(rep.Scenario.Profiles, ", ")
	}
	return s + ")"
}

func printPreflightTable(w io.Writer, rep *simulate.PreflightReport, noHeaders bool) error {
	for _, a := range rep.Assumptions {
		fmt.Fprintf(w, "ASSUMED %s\n", a)
	}
	for _, a := range rep.Stated {
		fmt.Fprintf(w, "STATED %s\n", a)
	}
	fmt.Fprintln(w, scenarioLine(rep))
	if len(rep.Findings) > 0 {
		var rows [][]string
		for _, f := range rep.Findings {
			rows = append(rows, []string{f.Check, string(f.Severity), f.Subject, f.Message})
		}
		if err := output.Table(w, []string{"CHECK", "SEVERITY", "SUBJECT", "MESSAGE"}, rows, noHeaders); err != nil {
			return err
		}
	}
	if t := rep.Traffic; t != nil && t.Proxied != nil {
		fmt.Fprintf(w, "\nTRAFFIC %s (%s):\n", t.Source, t.Format)
		if err := printProxied(w, t.Proxied, noHeaders); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "Result: %s (%d blocking, %d warning)\n", rep.Summary.Result, rep.Summary.Blocking, rep.Summary.Warning)
	return err
}

func printPreflightMarkdown(w io.Writer, rep *simulate.PreflightReport) error {
	fmt.Fprintf(w, "### mvpctl preflight: %s\n\n", rep.Summary.Result)
	for _, a := range rep.Assumptions {
		fmt.Fprintf(w, "**Assumed:** %s\n\n", a)
	}
	for _, a := range rep.Stated {
		fmt.Fprintf(w, "**Stated:** %s\n\n", a)
	}
	fmt.Fprintf(w, "%s\n\n", scenarioLine(rep))
	if len(rep.Findings) == 0 {
		_, err := fmt.Fprintln(w, "No findings.")
		return err
	}
	var rows [][]string
	for _, f := range rep.Findings {
		rows = append(rows, []string{f.Check + " " + f.Name, string(f.Severity), f.Subject, f.Message, strings.Join(f.Evidence, "\n"), f.Hint})
	}
	return output.MarkdownTable(w, []string{"Check", "Severity", "Subject", "Finding", "Evidence", "Fix"}, rows)
}

// junitCases makes one failing case per finding and one passing case per check that found
// nothing, so dashboards show what was checked as well as what failed.
func junitCases(rep *simulate.PreflightReport) []output.JUnitCase {
	found := map[string]bool{}
	var cases []output.JUnitCase
	for _, f := range rep.Findings {
		found[f.Check] = true
		name := f.Check + " " + f.Subject
		if f.Step != "" {
			name += " at step " + f.Step
		}
		cases = append(cases, output.JUnitCase{Name: name, ClassName: f.Name, FailureType: string(f.Severity),
			Message: f.Message, Detail: "evidence:\n" + strings.Join(f.Evidence, "\n") + "\nfix: " + f.Hint})
	}
	for _, c := range rep.Checks {
		if !found[c.ID] {
			cases = append(cases, output.JUnitCase{Name: c.ID + " " + c.Title, ClassName: c.Name})
		}
	}
	return cases
}
