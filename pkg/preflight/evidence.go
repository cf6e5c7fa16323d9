package preflight

import (
	"slices"
	"sort"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// EvidenceWanted are the GVRs whose harm client evidence could change: every GVR at risk that
// some apiserver serves at the start, and every GVR of a group/version an upgraded server
// loses (MVP040); each with the GVR to list its objects through: another version of the same
// resource when some apiserver serves one (a GA one first), so that the read is not counted
// as a request of the GVR at risk. Sorted, each once.
func (r *Report) EvidenceWanted(start *snapshot.Snapshot) []snapshot.ManagedFieldsRequest {
	served := map[string]snapshot.GVR{}
	versions := map[string][]string{} // group/resource → versions served
	for _, srv := range start.Servers {
		for _, res := range srv.Resources {
			g := res.GVR()
			if _, ok := served[g.String()]; !ok {
				versions[g.Group+"/"+g.Resource] = append(versions[g.Group+"/"+g.Resource], g.Version)
			}
			served[g.String()] = g
		}
	}
	want := map[string]bool{}
	if r.Simulation != nil {
		for _, risk := range r.Simulation.AtRisk {
			want[risk.GVR] = true
		}
	}
	for _, f := range r.Findings {
		if f.Check == CheckConfigLoss.ID {
			gv, _, _ := strings.Cut(f.Subject, "@")
			for k := range served {
				if replay.GVOf(k) == gv {
					want[k] = true
				}
			}
		}
	}
	var out []snapshot.ManagedFieldsRequest
	for k := range want {
		g, ok := served[k]
		if !ok {
			continue
		}
		via := g
		if v := otherVersion(versions[g.Group+"/"+g.Resource], g.Version); v != "" {
			via.Version = v
		}
		out = append(out, snapshot.ManagedFieldsRequest{GVR: g, Via: via})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GVR.String() < out[j].GVR.String() })
	return out
}

// otherVersion is a version of versions other than v: a GA one (no alpha or beta) first, then
// the first in order; "" when there is none.
func otherVersion(versions []string, v string) string {
	var first string
	for _, o := range slices.Sorted(slices.Values(versions)) {
		if o == v {
			continue
		}
		if !strings.Contains(o, "alpha") && !strings.Contains(o, "beta") {
			return o
		}
		if first == "" {
			first = o
		}
	}
	return first
}
