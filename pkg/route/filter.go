package route

import "github.com/mvpctl/mvpctl/pkg/snapshot"

// Filtered is t with only the rows f selects (kinds gives each GVR's kind, for a filter by
// kind), and the filter recorded in it. An empty filter returns t as it is.
func (t RoutingTable) Filtered(f snapshot.GVRFilter, kinds map[snapshot.GVR]string) RoutingTable {
	if f.Empty() {
		return t
	}
	rows := make([]Row, 0, len(t.Rows))
	for _, r := range t.Rows {
		if f.MatchName(r.Name, kinds) {
			rows = append(rows, r)
		}
	}
	t.Rows = rows
	t.Filter = f.String()
	return t
}
