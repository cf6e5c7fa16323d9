package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/simulate"
)

// printChanges prints what step i changes: for each server and change of its answer — from
// what, at the step it was last up, to what — the GVRs it changes for, packed under it; the
// servers whose answers change alike for the same GVRs on one line.
func printChanges(w io.Writer, sim *simulate.Simulation, i int, o output.Options) {
	type key struct{ server, from, to string }
	groups := map[key][]string{}
	var order []key
	for _, c := range sim.Changes(i) {
		k := key{c.Server, changeFrom(c, o), o.Paint(answerText(c.To), outcomeTone(c.To.Outcome))}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], c.GVR)
	}
	// servers whose answers change alike for the same GVRs share a line
	type merged struct {
		servers  []string
		from, to string
		gvrs     []string
	}
	var lines []*merged
	index := map[string]*merged{}
	for _, k := range order {
		id := k.from + "\x00" + k.to + "\x00" + strings.Join(groups[k], "\x00")
		if m := index[id]; m != nil {
			m.servers = append(m.servers, k.server)
			continue
		}
		m := &merged{servers: []string{k.server}, from: k.from, to: k.to, gvrs: groups[k]}
		index[id] = m
		lines = append(lines, m)
	}
	for _, m := range lines {
		output.Fprintf(w, "%s: %s to %s: %d GVR(s)\n", strings.Join(m.servers, ", "), m.from, m.to, len(m.gvrs))
		for _, line := range packWords(m.gvrs, subjectIndent, output.LineWidth(w)) {
			output.Fprintf(w, "%s\n", line)
		}
	}
}

// changeFrom says what a server answered before: "from 404 at step 2", "from served by none
// at step 1", or "new" when it was never up before.
func changeFrom(c simulate.Change, o output.Options) string {
	switch {
	case c.FromStep < 0:
		return "new"
	case c.From.Text == "":
		return fmt.Sprintf("from served by none at step %d", c.FromStep)
	}
	return fmt.Sprintf("from %s at step %d", o.Paint(answerText(c.From), outcomeTone(c.From.Outcome)), c.FromStep)
}

// answerText is a cell as a step's table prints it, a 503 with its kind.
func answerText(c route.Cell) string {
	if c.Unavailable != "" {
		return c.Text + " (" + string(c.Unavailable) + ")"
	}
	return c.Text
}

// printRiskGroups prints the GVRs at risk that answer alike, and are served by the same
// servers meanwhile, under one line that says so.
func printRiskGroups(w io.Writer, groups []simulate.RiskGroup, o output.Options) {
	type key struct{ windows, servedBy string }
	gvrs := map[key][]string{}
	var order []key
	for _, g := range groups {
		k := key{g.Windows, g.ServedBy}
		if gvrs[k] == nil {
			order = append(order, k)
		}
		gvrs[k] = append(gvrs[k], g.GVR)
	}
	for _, k := range order {
		output.Fprintf(w, "%s, served by %s: %d GVR(s)\n", o.Paint(k.windows, output.Failure), k.servedBy, len(gvrs[k]))
		for _, line := range packWords(gvrs[k], subjectIndent, output.LineWidth(w)) {
			output.Fprintf(w, "%s\n", line)
		}
	}
}
