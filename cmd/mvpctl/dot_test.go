package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/graph/formats/dot"
	"gonum.org/v1/gonum/graph/formats/dot/ast"
)

// Every DOT golden file must be a graph Graphviz draws as meant, checked in Go so that
// `make test` needs no Graphviz: it parses (gonum's DOT grammar, Graphviz's own), and every
// attribute value Graphviz would warn about and ignore (shape, style, colour, rankdir,
// labelloc, sizes) is one it knows. Edges join declared nodes only: an edge to a misspelt ID
// draws a stray unlabelled node without a warning. `make pictures` still renders with dot.
func TestDOTGoldensValid(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.dot"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no DOT golden files: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := validDOT(data); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		})
	}
}

// The check rejects what Graphviz rejects or silently draws otherwise: each case mutates a
// golden file once.
func TestValidDOTRejects(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "golden", "explain-example.dot"))
	if err != nil {
		t.Fatal(err)
	}
	good := string(data)
	if err := validDOT(data); err != nil {
		t.Fatalf("the unmutated golden file is rejected: %v", err)
	}
	for _, tc := range []struct{ name, old, new, want string }{
		{"unclosed graph", "\n}\n", "\n", "syntax"},
		{"unterminated string", `label="on kas-a";`, `label="on kas-a;`, "syntax"},
		{"edge without target", "client -> s_kas_a;", "client -> ;", "syntax"},
		{"undirected edge in a digraph", "client -> s_kas_a;", "client -- s_kas_a;", "syntax"},
		{"unknown shape", "shape=hexagon", "shape=hexagone", `shape "hexagone"`},
		{"unknown style", `style="rounded,dashed"`, `style="rounded,dahsed"`, `style "rounded,dahsed"`},
		{"bad colour", `color="#999999"`, `color="#99999"`, `color "#99999"`},
		{"bad rankdir", "rankdir=LR", "rankdir=LEFT", `rankdir "LEFT"`},
		{"bad fontsize", "fontsize=11", "fontsize=eleven", `fontsize "eleven"`},
		{"unknown attribute", "penwidth=2", "pendwidth=2", `attribute "pendwidth"`},
		{"edge to an undeclared node", "client -> s_kas_b;", "client -> s_kas_c;", `"s_kas_c"`},
		{"node declared twice", "    client -> s_kas_a;", "    client [label=\"again\"];\n    client -> s_kas_a;", `"client" declared twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Count(good, tc.old) == 0 {
				t.Fatalf("mutation %q not found in the golden file", tc.old)
			}
			err := validDOT([]byte(strings.Replace(good, tc.old, tc.new, 1)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// validDOT parses data as one directed graph and checks it as TestDOTGoldensValid says.
func validDOT(data []byte) error {
	f, err := dot.ParseBytes(data)
	if err != nil {
		return fmt.Errorf("syntax: %v", err)
	}
	if len(f.Graphs) != 1 || !f.Graphs[0].Directed {
		return fmt.Errorf("want one digraph, got %d graph(s)", len(f.Graphs))
	}
	c := dotChecker{declared: map[string]bool{}}
	c.stmts(f.Graphs[0].Stmts)
	for _, e := range c.endpoints {
		if !c.declared[e] && c.err == nil {
			c.err = fmt.Errorf("edge endpoint %q is not a declared node", e)
		}
	}
	return c.err
}

type dotChecker struct {
	declared  map[string]bool
	endpoints []string
	err       error
}

func (c *dotChecker) stmts(stmts []ast.Stmt) {
	for _, s := range stmts {
		switch s := s.(type) {
		case *ast.NodeStmt:
			if c.declared[s.Node.ID] && c.err == nil {
				c.err = fmt.Errorf("node %q declared twice", s.Node.ID)
			}
			c.declared[s.Node.ID] = true
			c.attrs(ast.NodeKind, s.Attrs)
		case *ast.EdgeStmt:
			c.vertex(s.From)
			for e := s.To; e != nil; e = e.To {
				if !e.Directed && c.err == nil {
					c.err = fmt.Errorf("syntax: undirected edge (--) to %s in a digraph", e.Vertex)
				}
				c.vertex(e.Vertex)
			}
			c.attrs(ast.EdgeKind, s.Attrs)
		case *ast.AttrStmt:
			c.attrs(s.Kind, s.Attrs)
		case *ast.Attr:
			c.attrs(ast.GraphKind, []*ast.Attr{s})
		case *ast.Subgraph:
			c.stmts(s.Stmts)
		}
	}
}

func (c *dotChecker) vertex(v ast.Vertex) {
	switch v := v.(type) {
	case *ast.Node:
		c.endpoints = append(c.endpoints, v.ID)
	case *ast.Subgraph:
		c.stmts(v.Stmts)
	}
}

// dotAttrs: the Graphviz attributes mvpctl's pictures may set, per kind
// (https://graphviz.org/doc/info/attrs.html), each with its value check.
var dotAttrs = map[ast.Kind]map[string]func(string) bool{
	ast.GraphKind: {"label": anyValue, "labelloc": oneOf("t", "b", "c"), "rankdir": oneOf("TB", "LR", "BT", "RL"),
		"fontname": anyValue, "fontsize": positive, "fontcolor": dotColor, "style": dotStyle, "color": dotColor,
		"fillcolor": dotColor, "bgcolor": dotColor, "penwidth": positive, "nodesep": positive, "ranksep": positive,
		"rank": oneOf("same", "min", "max", "source", "sink"), "compound": oneOf("true", "false"),
		"newrank": oneOf("true", "false"), "splines": anyValue},
	ast.NodeKind: {"label": anyValue, "shape": oneOf(dotShapes...), "style": dotStyle, "color": dotColor,
		"fillcolor": dotColor, "fontcolor": dotColor, "fontname": anyValue, "fontsize": positive,
		"penwidth": positive, "tooltip": anyValue, "width": positive, "height": positive, "margin": anyValue},
	ast.EdgeKind: {"label": anyValue, "style": dotStyle, "color": dotColor, "fontcolor": dotColor,
		"fontname": anyValue, "fontsize": positive, "penwidth": positive, "arrowhead": anyValue,
		"dir": oneOf("forward", "back", "both", "none"), "constraint": oneOf("true", "false"),
		"lhead": anyValue, "ltail": anyValue, "tooltip": anyValue, "weight": positive},
}

// Graphviz's node shapes (https://graphviz.org/doc/info/shapes.html), record shapes aside.
var dotShapes = strings.Fields(`box polygon ellipse oval circle point egg triangle plaintext plain
	diamond trapezium parallelogram house pentagon hexagon septagon octagon doublecircle
	doubleoctagon tripleoctagon invtriangle invtrapezium invhouse Mdiamond Msquare Mcircle rect
	rectangle square star none underline cylinder note tab folder box3d component promoter cds
	terminator utr primersite restrictionsite fivepoverhang threepoverhang noverhang assembly
	signature insulator ribosite rnastab proteasesite proteinstab rpromoter rarrow larrow lpromoter`)

var dotHexColor = regexp.MustCompile(`^#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?$`)

func (c *dotChecker) attrs(kind ast.Kind, attrs []*ast.Attr) {
	for _, a := range attrs {
		if c.err != nil {
			return
		}
		check, ok := dotAttrs[kind][a.Key]
		val := unquoteDOT(a.Val)
		switch {
		case !ok:
			c.err = fmt.Errorf("%s attribute %q is not one Graphviz has for a %s (or the check knows)", kind, a.Key, kind)
		case !check(val):
			c.err = fmt.Errorf("%s attribute %s %q is not a value Graphviz knows", kind, a.Key, val)
		}
	}
}

// unquoteDOT returns a DOT ID's value: a quoted string without its quotes and escapes.
func unquoteDOT(id string) string {
	if len(id) >= 2 && id[0] == '"' && id[len(id)-1] == '"' {
		return strings.ReplaceAll(id[1:len(id)-1], `\"`, `"`)
	}
	return id
}

func anyValue(string) bool { return true }

func positive(s string) bool {
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && f > 0
}

func oneOf(values ...string) func(string) bool {
	return func(s string) bool {
		for _, v := range values {
			if s == v {
				return true
			}
		}
		return false
	}
}

// dotColor: #RRGGBB[AA] or one of the few names mvpctl may use.
func dotColor(s string) bool {
	return dotHexColor.MatchString(s) || oneOf("black", "white", "transparent", "none")(s)
}

var dotStyleItem = oneOf("filled", "rounded", "dashed", "dotted", "bold", "solid", "invis",
	"diagonals", "striped", "wedged", "radial", "tapered")

// dotStyle: comma-separated style items (https://graphviz.org/docs/attr-types/style/).
func dotStyle(s string) bool {
	for _, item := range strings.Split(s, ",") {
		if !dotStyleItem(strings.TrimSpace(item)) {
			return false
		}
	}
	return true
}
