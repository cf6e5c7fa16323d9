package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/basis"
	"github.com/mvpctl/mvpctl/pkg/diagram"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/simulate"
)

// Simulation prints a simulation (simulate upgrade, simulate run): the routing at every
// step, what is at risk, and what happens to the replayed traffic; drawn, the steps as a
// timeline.
type Simulation struct {
	Report replay.SimulationReport
	// AllSteps prints every step's whole routing table (--steps all; -o wide does too).
	AllSteps bool
}

func (w Simulation) Object() any { return w.Report }

// WriteMermaid and WriteDOT draw the steps as a timeline with each step's 404/503 boxes.
func (w Simulation) WriteMermaid(out io.Writer) error {
	return diagram.Timeline(w.Report.Simulation, "mvpctl simulate").WriteMermaid(out)
}

func (w Simulation) WriteDOT(out io.Writer) error {
	return diagram.Timeline(w.Report.Simulation, "mvpctl simulate").WriteDOT(out)
}

func (w Simulation) WriteText(out io.Writer, o output.Options) error {
	return printSimulation(out, w, o)
}

// Names are the GVRs at risk at some step, each once.
func (w Simulation) Names() []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range w.Report.Simulation.AtRisk {
		if !seen[r.GVR] {
			seen[r.GVR] = true
			names = append(names, r.GVR)
		}
	}
	return names
}

// Table is AT RISK: a row per step, server and GVR that answers 404 or 503 while the GVR is
// served somewhere; wide adds the reason.
func (w Simulation) Table(o output.Options) ([]string, [][]string) {
	headers := []string{"STEP", "ACTION", "SERVER", "GVR", "STATUS", "SERVED-BY"}
	if o.Wide() {
		headers = append(headers, "REASON")
	}
	rows := [][]string{}
	for _, r := range w.Report.Simulation.AtRisk {
		status := fmt.Sprint(r.Status)
		if r.Unavailable != "" {
			status += " (" + string(r.Unavailable) + ")"
		}
		row := []string{fmt.Sprintf("%d", r.StepN), r.Step, r.Server, r.GVR, o.Paint(status, output.Failure), joinOrNone(r.ServedBy)}
		if o.Wide() {
			row = append(row, r.Reason)
		}
		rows = append(rows, row)
	}
	return headers, rows
}

// printSimulation prints the summary first — what the start rests on, what is at risk, what
// is removed — then the routing after every step, then the replayed traffic.
func printSimulation(w io.Writer, sw Simulation, o output.Options) error {
	rep, noHeaders := sw.Report, o.NoHeaders
	sim := rep.Simulation
	writeProvisional(w, sim.Provisional, o.Wide())
	output.Fprintf(w, "Start: %s\n", sim.Start)
	writeAssumedStated(w, sim.RestsOn)
	if len(sim.Profiles) > 0 {
		output.Fprintf(w, "Profiles: %s (discovery of real default kube-apiservers of these versions%s)\n", strings.Join(sim.Profiles, ", "), provisionalExcept(sim.Provisional))
	}
	if sim.Filter != "" {
		output.Fprintf(w, "Only the GVRs of %s\n", sim.Filter)
	}
	fmt.Fprintln(w, "\nAT RISK (404 or 503 for a GVR that some server serves):")
	switch {
	case len(sim.AtRisk) == 0:
		fmt.Fprintln(w, "none")
	case o.Wide():
		headers, rows := sw.Table(o)
		if err := output.Table(w, headers, rows, noHeaders); err != nil {
			return err
		}
	default: // the GVRs that answer alike, under what they answer; -o wide has a row per step and server, with the reason
		printRiskGroups(w, simulate.RiskGroups(sim.AtRisk), o)
	}
	if len(sim.Removed) > 0 {
		fmt.Fprintln(w, "\nREMOVED (served at the start, by no server at the end):")
		var rows [][]string
		for _, g := range sim.Removed {
			rows = append(rows, []string{g, joinOrNone(sim.RemovedFrom[g])})
		}
		if err := output.Table(w, []string{"GVR", "SERVED-AT-START-BY"}, rows, noHeaders); err != nil {
			return err
		}
	}
	if len(sim.RuntimeConfigs) > 0 {
		title := "RUNTIME-CONFIG AS OBSERVED (kept by every upgrade):"
		if len(sim.StatedConfigs) > 0 {
			title = "RUNTIME-CONFIG AS OBSERVED (an upgrade keeps the " + basis.StatedMark + " one instead, where there is one):"
		}
		fmt.Fprintln(w, "\n"+title)
		var rows [][]string
		for _, c := range sim.RuntimeConfigs {
			cfg, note := c.RuntimeConfig, ""
			if cfg == "" {
				cfg = "<defaults>"
			}
			switch {
			case c.Unknown != "":
				cfg, note = "<unknown>", c.Unknown
			case len(c.Misfits) > 0:
				note = "fits no runtime-config: " + strings.Join(c.Misfits, "; ")
			}
			rows = append(rows, []string{c.Server, orNone(c.Profile), cfg, orNone(note)})
		}
		if err := output.Table(w, []string{"SERVER", "PROFILE", "RUNTIME-CONFIG", "NOTE"}, rows, noHeaders); err != nil {
			return err
		}
	}
	if err := printSteps(w, sim, o, sw.AllSteps || o.Wide()); err != nil {
		return err
	}
	if rep.Traffic != nil {
		return ReplayedTraffic(w, rep.Traffic, noHeaders)
	}
	return nil
}

// printSteps prints each step: its servers, phase and notes, then its routing — every row
// (all), or only the rows the step changes, leaving out the start (what `mvpctl routes`
// prints) and the steps that change nothing, which a last line names.
func printSteps(w io.Writer, sim *simulate.Simulation, o output.Options, all bool) error {
	var unchanged []string
	for i, s := range sim.Steps {
		rows := s.Table.Rows
		if !all {
			if i == 0 {
				continue // the start: `mvpctl routes` prints it, and the changes are from it
			}
			if rows = sim.ChangedRows(i); len(rows) == 0 && len(s.Notes) == 0 {
				unchanged = append(unchanged, fmt.Sprint(s.N))
				continue
			}
		}
		var servers []string
		for _, srv := range s.Servers {
			state := srv.Version
			if !srv.Reachable {
				state += ", down"
			}
			servers = append(servers, fmt.Sprintf("%s (%s)", srv.Name, state))
		}
		output.Fprintf(w, "\nSTEP %d: %s — %s\n", s.N, s.Step, strings.Join(servers, ", "))
		if s.Phase != "" {
			output.Fprintf(w, "(%s)\n", s.Phase)
		}
		for _, n := range s.Notes {
			output.Fprintf(w, "note: %s\n", n)
		}
		switch {
		case all && len(rows) == 0:
			fmt.Fprintln(w, "every reachable server serves every GVR itself: nothing is proxied")
			continue
		case len(rows) == 0:
			fmt.Fprintln(w, "the routing does not change")
			continue
		case !all:
			output.Fprintf(w, "%d row(s) change:\n", len(rows))
			printChanges(w, sim, i, o)
			continue
		}
		if err := printRoutingRows(w, route.RoutingTable{Servers: s.Table.Servers, Rows: rows}, o); err != nil {
			return err
		}
	}
	if !all {
		skipped := "the start's routing (step 0: `mvpctl routes` prints it)"
		if len(unchanged) > 0 {
			skipped += fmt.Sprintf(" and step(s) %s, which change no routing", strings.Join(unchanged, ", "))
		}
		output.Fprintf(w, "\nNot printed: %s, nor the rows a step leaves as they were; --steps all or -o wide prints every step's whole table\n", skipped)
	}
	return nil
}

// printRoutingRows prints a step's rows, each 503 with its kind: a crash's two phases differ
// only in that, and a row that changes must look changed.
func printRoutingRows(w io.Writer, t route.RoutingTable, o output.Options) error {
	kinds := make([]route.Row, len(t.Rows))
	for i, r := range t.Rows {
		kinds[i] = r
		kinds[i].Cells = make([]route.Cell, len(r.Cells))
		for j, c := range r.Cells {
			if c.Unavailable != "" {
				c.Text += " (" + string(c.Unavailable) + ")"
			}
			kinds[i].Cells[j] = c
		}
	}
	t.Rows = kinds
	headers, rows := routesTable(t, o, false, false)
	return output.Table(w, headers, rows, o.NoHeaders)
}
