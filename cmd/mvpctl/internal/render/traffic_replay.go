package render

import (
	"fmt"
	"io"

	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/replay"
)

// Proxied prints the join of the audit events of proxied requests: requests per
// proxying server, peer and code.
func Proxied(w io.Writer, p *replay.ProxiedReport, noHeaders bool) error {
	if p == nil {
		return nil
	}
	output.Fprintf(w, "  %d proxied request(s) joined by audit ID (from: the server that received it first)", p.Total)
	if p.Multiple > 0 {
		output.Fprintf(w, "; %d audit ID(s) logged three times or more, not joined", p.Multiple)
	}
	fmt.Fprintln(w)
	if len(p.Pairs) == 0 {
		return nil
	}
	if why := p.Unattributed(); why != "" {
		output.Fprintf(w, "  %s\n", why)
	}
	headers, rows := proxiedTable(p)
	if err := output.Table(w, headers, rows, noHeaders); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return nil
}

// proxiedTable is a row per proxying server, peer and codes; without the server columns when
// no event's server is known (Unattributed says why).
func proxiedTable(p *replay.ProxiedReport) ([]string, [][]string) {
	attributed := p.Attributed()
	var rows [][]string
	for _, pr := range p.Pairs {
		code := fmt.Sprint(pr.Code)
		if pr.ToCode != pr.Code {
			code += fmt.Sprintf(" (to: %d)", pr.ToCode)
		}
		if attributed {
			rows = append(rows, []string{pr.From, pr.To, code, fmt.Sprint(pr.Requests)})
		} else {
			rows = append(rows, []string{code, fmt.Sprint(pr.Requests)})
		}
	}
	if attributed {
		return []string{"PROXIED-FROM", "TO", "CODE", "REQUESTS"}, rows
	}
	return []string{"CODE", "REQUESTS"}, rows
}

// ReplayedTraffic prints what happened to replayed traffic: what was read, the proxied
// requests joined, the requests at risk per step, and the GVRs and user agents at risk.
func ReplayedTraffic(w io.Writer, t *replay.Report, noHeaders bool) error {
	output.Fprintf(w, "\nTRAFFIC %s (%s): %d requests, %d non-resource, %d unparsable, %d malformed line(s)\n",
		t.Source, t.Format, t.Requests, t.NonResource, t.Unparsable, t.Malformed)
	if t.ProxiedCopies > 0 {
		output.Fprintf(w, "  %d event(s) repeat an earlier audit ID: requests one server proxied to another, logged by both; each replayed once\n", t.ProxiedCopies)
	}
	for _, e := range t.MalformedExamples {
		output.Fprintf(w, "  malformed: %s\n", e)
	}
	if err := Proxied(w, t.Proxied, noHeaders); err != nil {
		return err
	}
	var rows [][]string
	for _, s := range t.Steps {
		rows = append(rows, []string{fmt.Sprint(s.N), s.Step, fmt.Sprint(s.AtRisk)})
	}
	if err := output.Table(w, []string{"STEP", "ACTION", "REQUESTS-AT-RISK"}, rows, noHeaders); err != nil {
		return err
	}
	rows = nil
	for _, gv := range t.GVRs {
		if gv.AtRisk == 0 && !gv.Removed {
			continue
		}
		steps := make([]string, len(gv.AtRiskSteps))
		for i, s := range gv.AtRiskSteps {
			steps[i] = fmt.Sprint(s)
		}
		rows = append(rows, []string{gv.GVR, fmt.Sprint(gv.Requests), fmt.Sprint(gv.AtRisk), joinOrNone(steps), fmt.Sprint(gv.Removed)})
	}
	if len(rows) > 0 {
		fmt.Fprintln(w)
		if err := output.Table(w, []string{"GVR", "REQUESTS", "AT-RISK", "STEPS", "REMOVED"}, rows, noHeaders); err != nil {
			return err
		}
	}
	rows = nil
	for _, a := range t.UserAgents {
		if a.AtRisk > 0 {
			rows = append(rows, []string{a.UserAgent, fmt.Sprint(a.Requests), fmt.Sprint(a.AtRisk)})
		}
	}
	if len(rows) > 0 {
		fmt.Fprintln(w)
		return output.Table(w, []string{"USER-AGENT", "REQUESTS", "AT-RISK"}, rows, noHeaders)
	}
	return nil
}
