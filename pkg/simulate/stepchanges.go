package simulate

import "github.com/mvpctl/mvpctl/pkg/route"

// ChangedRows are the rows of step i's routing (i > 0; a crash's two phases are two
// evaluations) in which some reachable server answers differently from the last evaluation in
// which it was reachable too, or which are new, each with every server's answer: a row that
// every server now serves itself, which the step's table leaves out, is listed too. A server
// that is down has <unreachable> in every row, which its state in the step's header says once.
// Only the GVRs of the steps' (possibly narrowed) tables are compared. Without the steps'
// routers (a simulation read back from JSON) it is the step's whole table.
func (s *Simulation) ChangedRows(i int) []route.Row {
	rows, _ := s.changes(i)
	return rows
}

// Change is one server's answer for one GVR that step i changes: what it answered at the
// last step it was up before (FromStep, with no From when no apiserver served the GVR then;
// FromStep -1 when the server was never up before, or the steps' routers are not at hand)
// and what it answers now.
type Change struct {
	GVR      string
	Server   string
	From     route.Cell
	FromStep int
	To       route.Cell
}

// Changes are the changed cells of ChangedRows(i), a Change each, row by row.
func (s *Simulation) Changes(i int) []Change {
	rows, before := s.changes(i)
	upAt := map[string]int{} // the step each server was last up at before step i
	for _, srv := range s.Steps[i].Table.Servers {
		if j := lastReachable(s.Steps[:i], srv.Name); j >= 0 {
			upAt[srv.Name] = s.Steps[j].N
		}
	}
	var out []Change
	for _, r := range rows {
		for _, c := range r.Cells {
			if c.Text == route.Unreachable {
				continue
			}
			was, ok := before[c.Server][r.Name]
			if ok && cellKey(was.cell) == cellKey(c) {
				continue
			}
			ch := Change{GVR: r.Name, Server: c.Server, FromStep: -1, To: c}
			switch {
			case ok:
				ch.From, ch.FromStep = was.cell, was.step
			case before[c.Server] != nil:
				ch.FromStep = upAt[c.Server]
			}
			out = append(out, ch)
		}
	}
	return out
}

// answered is a server's cell at a step.
type answered struct {
	cell route.Cell
	step int // the step's N
}

// changes are ChangedRows(i) and, for each server up at step i, its answers at the last step
// it was up before.
func (s *Simulation) changes(i int) ([]route.Row, map[string]map[string]answered) {
	cur := s.Steps[i]
	if cur.router == nil {
		return cur.Table.Rows, nil
	}
	candidates := map[string]bool{}
	for _, st := range s.Steps[:i+1] {
		for _, r := range st.Table.Rows {
			candidates[r.Name] = true
		}
	}
	// before[server][row] is the server's answer when it was last reachable before step i.
	before := map[string]map[string]answered{}
	full := map[int][]route.Row{}
	for _, srv := range cur.Table.Servers {
		if !srv.Reachable {
			continue
		}
		j := lastReachable(s.Steps[:i], srv.Name)
		if j < 0 {
			continue // never up before: all it answers is new
		}
		if s.Steps[j].router == nil {
			return cur.Table.Rows, nil
		}
		if full[j] == nil {
			full[j] = s.Steps[j].router.Table(true).Rows
		}
		before[srv.Name] = map[string]answered{}
		for _, r := range full[j] {
			for _, c := range r.Cells {
				if c.Server == srv.Name {
					before[srv.Name][r.Name] = answered{c, s.Steps[j].N}
				}
			}
		}
	}
	var out []route.Row
	for _, r := range cur.router.Table(true).Rows {
		if !candidates[r.Name] {
			continue
		}
		for _, c := range r.Cells {
			if was, ok := before[c.Server][r.Name]; c.Text != route.Unreachable && (!ok || cellKey(was.cell) != cellKey(c)) {
				out = append(out, r)
				break
			}
		}
	}
	return out, before
}

// cellKey is what a cell answers: its text and, for a 503, why (a crash's two phases differ
// only in that).
func cellKey(c route.Cell) string { return c.Text + " " + string(c.Unavailable) }

// lastReachable is the index of the last step in which server is reachable, or -1.
func lastReachable(steps []StepResult, server string) int {
	for j := len(steps) - 1; j >= 0; j-- {
		for _, srv := range steps[j].Table.Servers {
			if srv.Name == server && srv.Reachable {
				return j
			}
		}
	}
	return -1
}

// RiskGroup is the at-risk cells of one GVR in words: which server answers what at which
// steps, and which servers serve it meanwhile.
type RiskGroup struct {
	GVR      string
	Windows  string // "404 on b at step 2, on c at steps 2–4"
	ServedBy string // "a", or "a (steps 2–3); a, b (step 4)": the servers up that serve it
}

// RiskGroups groups at-risk cells by GVR, in the order the GVRs first come.
func RiskGroups(risks []Risk) []RiskGroup {
	byGVR := map[string][]Risk{}
	var order []string
	for _, r := range risks {
		if byGVR[r.GVR] == nil {
			order = append(order, r.GVR)
		}
		byGVR[r.GVR] = append(byGVR[r.GVR], r)
	}
	out := make([]RiskGroup, len(order))
	for i, g := range order {
		out[i] = RiskGroup{GVR: g, Windows: WindowsText(byGVR[g]), ServedBy: ServedBySets(byGVR[g])}
	}
	return out
}
