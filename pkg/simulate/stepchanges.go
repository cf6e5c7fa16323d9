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
	cur := s.Steps[i]
	if cur.router == nil {
		return cur.Table.Rows
	}
	candidates := map[string]bool{}
	for _, st := range s.Steps[:i+1] {
		for _, r := range st.Table.Rows {
			candidates[r.Name] = true
		}
	}
	// before[server][row] is the server's answer when it was last reachable before step i.
	before := map[string]map[string]string{}
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
			return cur.Table.Rows
		}
		if full[j] == nil {
			full[j] = s.Steps[j].router.Table(true).Rows
		}
		before[srv.Name] = map[string]string{}
		for _, r := range full[j] {
			for _, c := range r.Cells {
				if c.Server == srv.Name {
					before[srv.Name][r.Name] = cellKey(c)
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
			if was, ok := before[c.Server][r.Name]; c.Text != route.Unreachable && (!ok || was != cellKey(c)) {
				out = append(out, r)
				break
			}
		}
	}
	return out
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
