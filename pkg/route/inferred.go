package route

import "github.com/mvpctl/mvpctl/pkg/snapshot"

// InferredResources returns what the router takes server to serve although it could not be
// read and recorded nothing (a crashed server): the GVRs some reachable server's
// peer-aggregated /apis lists and no reachable server serves itself (orphansOf). Each is the
// entry of the first peer-aggregated list that has it. Nil for any other server.
func (r *Router) InferredResources(server string) []snapshot.Resource {
	v := r.byName[server]
	if v == nil || !v.inferred {
		return nil
	}
	var out []snapshot.Resource
	seen := map[snapshot.GVR]bool{}
	for _, s := range r.snap.Servers {
		for _, res := range s.PeerAggregated {
			g := res.GVR()
			if id, ok := r.gvrs.ids[g]; ok && v.local.has(id) && !seen[g] {
				seen[g] = true
				out = append(out, res)
			}
		}
	}
	return out
}
