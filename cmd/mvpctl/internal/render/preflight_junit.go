package render

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/preflight"
)

// junitCases makes one case per finding, failing when the finding is at or above --fail-on,
// one skipped case per accepted finding and per stale accept rule, one passing case per check
// that found nothing, so dashboards show what was checked and accepted as well as what failed,
// and one case for the verdict, failing when the run fails: the failures are never more, nor
// fewer, than the exit code says. A case's name starts with the finding's key, ID:SUBJECT,
// which is what --ignore takes.
func (p Preflight) junitCases() []output.JUnitCase {
	rep := p.Report
	found := map[string]bool{}
	v := rep.Verdict
	cases := []output.JUnitCase{p.verdictCase(v)}
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
	cases = append(cases, p.objectCases()...)
	for _, c := range rep.Checks {
		if !found[c.ID] {
			cases = append(cases, output.JUnitCase{Name: c.ID + " " + c.Title, ClassName: c.Name})
		}
	}
	return cases
}

// verdictCase is the verdict as a JUnit case: failing when the run fails at --fail-on.
func (p Preflight) verdictCase(v preflight.Verdict) output.JUnitCase {
	c := output.JUnitCase{Name: fmt.Sprintf("verdict: %s (%s)", v.Result, p.verdictExit(v)), ClassName: "verdict"}
	if v.Fails() {
		c.FailureType, c.Message, c.Detail = string(v.Result), v.Reason, strings.Join(v.Caveats(), "\n")
	}
	return c
}
