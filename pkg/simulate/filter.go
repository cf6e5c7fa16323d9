package simulate

import (
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Narrow narrows the simulation to the GVRs f selects: each step's routing table, AtRisk and
// Removed (kinds gives each GVR's kind, for a filter by kind). An empty filter changes
// nothing.
func (s *Simulation) Narrow(f snapshot.GVRFilter, kinds map[snapshot.GVR]string) {
	if f.Empty() {
		return
	}
	s.Filter = f.String()
	for i := range s.Steps {
		s.Steps[i].Table = s.Steps[i].Table.Filtered(f, kinds)
	}
	atRisk := make([]Risk, 0, len(s.AtRisk))
	for _, r := range s.AtRisk {
		if f.MatchName(r.GVR, kinds) {
			atRisk = append(atRisk, r)
		}
	}
	s.AtRisk = atRisk
	var removed []string
	for _, g := range s.Removed {
		if f.MatchName(g, kinds) {
			removed = append(removed, g)
		} else {
			delete(s.RemovedFrom, g)
		}
	}
	s.Removed = removed
}

// Known maps every GVR some step of the simulation serves or lists (the plane at the start,
// the profiles of the versions it upgrades to) to its kind: what a filter may select.
func (s *Simulation) Known() map[snapshot.GVR]string {
	known := map[snapshot.GVR]string{}
	for _, st := range s.Steps {
		if st.snap == nil {
			continue
		}
		for g, kind := range st.snap.Known() {
			if known[g] == "" {
				known[g] = kind
			}
		}
	}
	return known
}
