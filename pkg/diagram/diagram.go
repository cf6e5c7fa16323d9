// Package diagram is a small graph model — nodes, edges, clusters — with two renderers:
// Mermaid (for Markdown: GitHub, GitLab) and Graphviz DOT (for images). Output is
// deterministic: nodes, edges and clusters come out in the order they were added, and
// identifiers are derived from the caller's keys, never from map iteration or pointers.
//
// The package knows nothing of Kubernetes; explain.go and routes.go build the graphs of
// mvpctl's reports from pkg/route's results.
package diagram

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mvpctl/mvpctl/internal/textsafe"
)

// Kind is what a node stands for; it decides the node's shape and colour in both renderers.
type Kind string

const (
	// Client is where requests come from.
	Client Kind = "client"
	// Server is an apiserver.
	Server Kind = "server"
	// Filter is a server's peer-proxy filter.
	Filter Kind = "filter"
	// Resource is a set of group/version/resources.
	Resource Kind = "resource"
	// OK is a successful end: served.
	OK Kind = "ok"
	// NotFound is a 404 end.
	NotFound Kind = "notfound"
	// Unavailable is a 503 end.
	Unavailable Kind = "unavailable"
	// Absent is something that could not be evaluated.
	Absent Kind = "absent"
)

// Style is how an edge is drawn.
type Style string

const (
	Solid  Style = ""
	Dashed Style = "dashed"
	// Bold marks the hop that carries a proxied request.
	Bold Style = "bold"
)

// Node is one box.
type Node struct {
	ID    string
	Label string // lines separated by "\n"
	Kind  Kind
}

// Edge is one arrow.
type Edge struct {
	From, To string
	Label    string
	Style    Style
	// Kind colours the edge like a node of that kind ("" for the default colour).
	Kind Kind
}

// Cluster groups nodes under a label (a Mermaid subgraph, a DOT cluster).
type Cluster struct {
	ID    string
	Label string
	Nodes []string
}

// Graph is a directed graph, drawn left to right.
type Graph struct {
	Title    string
	Nodes    []Node
	Edges    []Edge
	Clusters []Cluster
	index    map[string]int    // node ID → position in Nodes
	ids      map[string]string // key → node or cluster ID
	used     map[string]bool   // IDs given
}

// Node adds a node, or returns the existing one with that key, and returns its ID. The ID is
// key made safe for both renderers, and different from every other key's (uniqueID).
func (g *Graph) Node(key, label string, kind Kind) string {
	id, added := g.uniqueID(key)
	if added {
		if g.index == nil {
			g.index = map[string]int{}
		}
		g.index[id] = len(g.Nodes)
		g.Nodes = append(g.Nodes, Node{ID: id, Label: label, Kind: kind})
	}
	return id
}

// uniqueID is the ID of key: ID(key) for the first key that makes it, with "_2", "_3", ...
// added for the next ones, so that servers kas-a and kas.a stay two nodes. added is false
// when key has its ID already.
func (g *Graph) uniqueID(key string) (id string, added bool) {
	if id, ok := g.ids[key]; ok {
		return id, false
	}
	if g.ids == nil {
		g.ids, g.used = map[string]string{}, map[string]bool{}
	}
	id = ID(key)
	for n := 2; g.used[id]; n++ {
		id = fmt.Sprintf("%s_%d", ID(key), n)
	}
	g.ids[key], g.used[id] = id, true
	return id, true
}

// Edge adds an edge between two node IDs.
func (g *Graph) Edge(from, to, label string, style Style, kind Kind) {
	g.Edges = append(g.Edges, Edge{From: from, To: to, Label: label, Style: style, Kind: kind})
}

// Cluster adds a cluster of node IDs.
func (g *Graph) Cluster(key, label string, nodes ...string) {
	id, _ := g.uniqueID("cluster_" + key)
	g.Clusters = append(g.Clusters, Cluster{ID: id, Label: label, Nodes: nodes})
}

// ID makes key an identifier both renderers accept: letters, digits and underscores.
func ID(key string) string {
	var b strings.Builder
	for _, r := range key {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 || (key[0] >= '0' && key[0] <= '9') {
		return "n" + b.String()
	}
	return b.String()
}

// Wrap breaks text into lines of at most width characters at spaces, for labels.
func Wrap(text string, width int) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(vis(text)) { // a line break inside text is not one of the label's
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// colours per kind: fill, stroke.
var colours = map[Kind][2]string{
	Client:      {"#eef3fb", "#4a6fa5"},
	Server:      {"#ffffff", "#333333"},
	Filter:      {"#fff7e0", "#b08800"},
	Resource:    {"#f4f4f4", "#666666"},
	OK:          {"#e6f4ea", "#2e7d32"},
	NotFound:    {"#fdecea", "#c62828"},
	Unavailable: {"#fff0e0", "#e65100"},
	Absent:      {"#eeeeee", "#9e9e9e"},
}

// kinds in a fixed order, for class definitions.
var kinds = []Kind{Client, Server, Filter, Resource, OK, NotFound, Unavailable, Absent}

// WriteMermaid renders g as a Mermaid flowchart.
func (g *Graph) WriteMermaid(w io.Writer) error {
	var b strings.Builder
	if g.Title != "" {
		// A YAML front matter: the title as a JSON string, which YAML reads as it is.
		title, _ := json.Marshal(g.Title)
		fmt.Fprintf(&b, "---\ntitle: %s\n---\n", title)
	}
	b.WriteString("flowchart LR\n")
	used := map[Kind]bool{}
	inCluster := map[string]bool{}
	for _, c := range g.Clusters {
		for _, id := range c.Nodes {
			inCluster[id] = true
		}
	}
	for _, n := range g.Nodes {
		used[n.Kind] = true
		if !inCluster[n.ID] {
			fmt.Fprintf(&b, "    %s\n", mermaidNode(n))
		}
	}
	for _, c := range g.Clusters {
		fmt.Fprintf(&b, "    subgraph %s[\"%s\"]\n", c.ID, mermaidText(c.Label))
		for _, id := range c.Nodes {
			fmt.Fprintf(&b, "        %s\n", mermaidNode(g.Nodes[g.index[id]]))
		}
		b.WriteString("    end\n")
	}
	for i, e := range g.Edges {
		arrow := "-->"
		switch e.Style {
		case Dashed:
			arrow = "-.->"
		case Bold:
			arrow = "==>"
		}
		if e.Label != "" {
			fmt.Fprintf(&b, "    %s %s|\"%s\"| %s\n", e.From, arrow, mermaidText(e.Label), e.To)
		} else {
			fmt.Fprintf(&b, "    %s %s %s\n", e.From, arrow, e.To)
		}
		if c, ok := colours[e.Kind]; ok && e.Kind != "" {
			fmt.Fprintf(&b, "    linkStyle %d stroke:%s\n", i, c[1])
		}
	}
	for _, k := range kinds {
		if !used[k] {
			continue
		}
		c := colours[k]
		fmt.Fprintf(&b, "    classDef %s fill:%s,stroke:%s,color:#000\n", k, c[0], c[1])
		var ids []string
		for _, n := range g.Nodes {
			if n.Kind == k {
				ids = append(ids, n.ID)
			}
		}
		fmt.Fprintf(&b, "    class %s %s\n", strings.Join(ids, ","), k)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mermaidNode(n Node) string {
	label := mermaidText(n.Label)
	switch n.Kind {
	case Client:
		return fmt.Sprintf("%s([\"%s\"])", n.ID, label)
	case Filter:
		return fmt.Sprintf("%s{{\"%s\"}}", n.ID, label)
	case OK, NotFound, Unavailable:
		return fmt.Sprintf("%s([\"%s\"])", n.ID, label)
	case Resource:
		return fmt.Sprintf("%s[/\"%s\"/]", n.ID, label)
	}
	return fmt.Sprintf("%s[\"%s\"]", n.ID, label)
}

// mermaidText escapes a label: quotes, markup and '#' as entity codes, line breaks as <br/>.
func mermaidText(s string) string {
	s = textsafe.VisibleLines(s)
	s = strings.ReplaceAll(s, "#", "#35;") // first: the codes below start with '#'
	s = strings.ReplaceAll(s, "&", "#amp;")
	s = strings.ReplaceAll(s, `"`, "#quot;")
	s = strings.ReplaceAll(s, "<", "#lt;")
	s = strings.ReplaceAll(s, ">", "#gt;")
	return strings.ReplaceAll(s, "\n", "<br/>")
}

// WriteDOT renders g as a Graphviz digraph.
func (g *Graph) WriteDOT(w io.Writer) error {
	var b strings.Builder
	b.WriteString("digraph mvpctl {\n")
	b.WriteString("    rankdir=LR;\n")
	if g.Title != "" {
		fmt.Fprintf(&b, "    label=%s;\n    labelloc=t;\n", dotString(g.Title))
	}
	b.WriteString("    fontname=\"Helvetica\";\n")
	b.WriteString("    node [fontname=\"Helvetica\", fontsize=11, style=\"filled\"];\n")
	b.WriteString("    edge [fontname=\"Helvetica\", fontsize=10];\n")
	inCluster := map[string]bool{}
	for _, c := range g.Clusters {
		for _, id := range c.Nodes {
			inCluster[id] = true
		}
	}
	for _, n := range g.Nodes {
		if !inCluster[n.ID] {
			fmt.Fprintf(&b, "    %s\n", dotNode(n))
		}
	}
	for _, c := range g.Clusters {
		fmt.Fprintf(&b, "    subgraph %s {\n        label=%s;\n        style=\"rounded,dashed\";\n        color=\"#999999\";\n", c.ID, dotString(c.Label))
		for _, id := range c.Nodes {
			fmt.Fprintf(&b, "        %s\n", dotNode(g.Nodes[g.index[id]]))
		}
		b.WriteString("    }\n")
	}
	for _, e := range g.Edges {
		var attrs []string
		if e.Label != "" {
			attrs = append(attrs, "label="+dotString(e.Label))
		}
		switch e.Style {
		case Dashed:
			attrs = append(attrs, "style=dashed")
		case Bold:
			attrs = append(attrs, "style=bold", "penwidth=2")
		}
		if c, ok := colours[e.Kind]; ok && e.Kind != "" {
			attrs = append(attrs, fmt.Sprintf("color=%q", c[1]), fmt.Sprintf("fontcolor=%q", c[1]))
		}
		fmt.Fprintf(&b, "    %s -> %s", e.From, e.To)
		if len(attrs) > 0 {
			fmt.Fprintf(&b, " [%s]", strings.Join(attrs, ", "))
		}
		b.WriteString(";\n")
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func dotNode(n Node) string {
	shape := "box"
	style := "filled"
	switch n.Kind {
	case Client:
		shape, style = "box", "rounded,filled"
	case Filter:
		shape = "hexagon"
	case Resource:
		shape = "note"
	case OK, NotFound, Unavailable, Absent:
		shape, style = "box", "rounded,filled"
	}
	label := dotString(n.Label)
	if n.Kind == Resource { // lists read best left-aligned: \l ends a left-justified line
		label = strings.TrimSuffix(label, `"`)
		label = strings.ReplaceAll(label, `\n`, `\l`) + `\l"`
	}
	c := colours[n.Kind]
	return fmt.Sprintf("%s [label=%s, shape=%s, style=%q, fillcolor=%q, color=%q];", n.ID, label, shape, style, c[0], c[1])
}

// dotString quotes s for DOT, with "\n" as line breaks, control characters as Go escapes
// (their backslash doubled, as DOT reads it) and markup as the entities Graphviz reads in a
// label (&lt;), so that no tag reaches an SVG made from it.
func dotString(s string) string {
	s = textsafe.VisibleLines(s)
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, `"`, `\"`)
	s = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
	return `"` + strings.ReplaceAll(s, "\n", `\n`) + `"`
}
