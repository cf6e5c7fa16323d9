package diagram

import (
	"github.com/mvpctl/mvpctl/internal/textsafe"

	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/route"
)

// labelWidth is where long labels wrap.
const labelWidth = 38

// Explain draws a request's path on every evaluated server: client → server → proxy filter →
// peer (the hop carries the loop-prevention header) or the server's own handler, and the 404
// and 503 ends.
func Explain(e route.Explanation) *Graph {
	g := &Graph{Title: vis(fmt.Sprintf("%s %s", e.Request.Method, e.Request.URL()))}
	client := g.Node("client", "client\n"+vis(e.Request.Method+" "+e.Request.URL()), Client)
	header := strings.ToLower(mvp.LoopPreventionHeader) + ": true"
	for _, d := range e.Servers {
		key := "s_" + d.Server
		srv := g.Node(key, vis(d.Server)+"\n"+vis(d.Version), Server)
		in := ""
		if e.Request.HeaderProxied {
			in = header
		}
		g.Edge(client, srv, in, Solid, "")
		last := srv
		members := []string{srv}
		if d.Plain.FilterInstalled {
			f := g.Node(key+"_filter", "proxy filter", Filter)
			g.Edge(srv, f, "", Solid, "")
			last = f
			members = append(members, f)
		}
		what, why := d.Plain.Split()
		switch d.Outcome {
		case mvp.Local:
			end := g.Node(key+"_local", vis(d.Server)+" serves it\n(local handler)", OK)
			g.Edge(last, end, "", Solid, OK)
			members = append(members, end)
		case mvp.Proxied:
			for _, c := range d.Candidates {
				if !c.Resolves {
					continue
				}
				peerLabel := vis(c.PeerName()) + " (peer)"
				if c.Address != "" {
					peerLabel += "\n" + vis(c.Address)
				}
				p := g.Node(key+"_peer_"+c.PeerName(), peerLabel, Server)
				g.Edge(last, p, header, Bold, "")
				members = append(members, p)
				label, kind := vis(c.PeerName())+" serves it\n(its answer is passed back)", OK
				if c.Outcome() == mvp.NotFound {
					label, kind = Wrap(c.PeerName()+": "+c.Result, labelWidth), NotFound
				}
				end := g.Node(key+"_peer_"+c.PeerName()+"_answer", label, kind)
				g.Edge(p, end, "", Solid, kind)
				members = append(members, end)
			}
		case mvp.NotFound:
			end := g.Node(key+"_404", what+"\n"+Wrap(why, labelWidth), NotFound)
			g.Edge(last, end, "", Solid, NotFound)
			members = append(members, end)
		case mvp.Unavailable:
			end := g.Node(key+"_503", what+"\n"+Wrap(why, labelWidth), Unavailable)
			for _, c := range d.Candidates {
				p := g.Node(key+"_peer_"+c.PeerName(), vis(c.PeerName())+" (peer)\n"+Wrap(c.Result, labelWidth), Absent)
				g.Edge(last, p, "", Dashed, Unavailable)
				g.Edge(p, end, "", Dashed, Unavailable)
				members = append(members, p)
			}
			if len(d.Candidates) == 0 {
				g.Edge(last, end, "", Solid, Unavailable)
			}
			members = append(members, end)
		}
		g.Cluster(key, "on "+vis(d.Server), members...)
	}
	for _, u := range e.Unreachable {
		n := g.Node("s_"+u.Name, vis(u.Name)+"\nnot evaluated: could not be read", Absent)
		g.Edge(client, n, "", Dashed, Absent)
	}
	return g
}

// Routes draws a routing table: each server, and each group of GVRs that every server treats
// the same way, with what the server does with them: serves them, proxies them to a peer,
// 404 or 503.
func Routes(t route.RoutingTable) *Graph {
	g := &Graph{Title: "mvpctl routes"}
	if t.All {
		g.Title += " --all"
	}
	servers := map[string]string{}
	for _, s := range t.Servers {
		label := vis(s.Name) + "\n" + vis(s.Version)
		kind := Server
		if !s.Reachable {
			label += "\nnot evaluated: could not be read"
			kind = Absent
		}
		servers[s.Name] = g.Node("s_"+s.Name, label, kind)
	}
	// One group per pattern of cells, in the order of the rows (sorted by name); within a
	// group, one line per group/version.
	type group struct {
		cells []route.Cell
		gvs   []string
		res   map[string][]string
	}
	var groups []*group
	byPattern := map[string]*group{}
	for _, r := range t.Rows {
		var pattern []string
		for _, c := range r.Cells {
			pattern = append(pattern, c.Server+"="+c.Text)
		}
		key := strings.Join(pattern, ",")
		grp := byPattern[key]
		if grp == nil {
			grp = &group{cells: r.Cells, res: map[string][]string{}}
			byPattern[key] = grp
			groups = append(groups, grp)
		}
		gv := r.GVR.GroupVersion()
		if _, ok := grp.res[gv]; !ok {
			grp.gvs = append(grp.gvs, gv)
		}
		grp.res[gv] = append(grp.res[gv], r.GVR.Resource)
	}
	for i, grp := range groups {
		var lines []string
		for _, gv := range grp.gvs {
			lines = append(lines, vis(gv+": "+strings.Join(grp.res[gv], ", ")))
		}
		n := g.Node(fmt.Sprintf("gvrs%d", i+1), strings.Join(lines, "\n"), Resource)
		for _, c := range grp.cells {
			s := servers[c.Server]
			switch c.Outcome {
			case mvp.Local:
				g.Edge(s, n, "serves", Solid, OK)
			case mvp.Proxied:
				g.Edge(s, n, "proxies to "+vis(strings.TrimPrefix(c.Text, "proxy→")), Bold, "")
			case mvp.NotFound:
				g.Edge(s, n, "404", Dashed, NotFound)
			case mvp.Unavailable:
				g.Edge(s, n, "503", Dashed, Unavailable)
			}
		}
	}
	return g
}

// vis makes a value from outside (a server's name, a GVR, an address) one line where a label
// places it: the label's own line breaks are the only ones.
func vis(s string) string { return textsafe.Visible(s) }

// visAll is vis of each value.
func visAll(values []string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = vis(v)
	}
	return out
}
