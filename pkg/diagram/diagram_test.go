package diagram

import (
	"bytes"
	"strings"
	"testing"
)

func sample() *Graph {
	g := &Graph{Title: `GET /apis/x "quoted"`}
	c := g.Node("client", "client\nGET /x", Client)
	s := g.Node("s_kas-a", "kas-a\nv1.37.1", Server)
	f := g.Node("s_kas-a_filter", "proxy filter", Filter)
	e := g.Node("s_kas-a_404", "404 <Not Found>", NotFound)
	if again := g.Node("s_kas-a", "other label", OK); again != s {
		panic(again)
	}
	g.Edge(c, s, "", Solid, "")
	g.Edge(s, f, `x-kubernetes-peer-proxied: "true"`, Bold, "")
	g.Edge(f, e, "", Dashed, NotFound)
	g.Cluster("s_kas-a", "on kas-a", s, f, e)
	return g
}

func TestRenderers(t *testing.T) {
	var m1, m2, d1, d2 bytes.Buffer
	if err := sample().WriteMermaid(&m1); err != nil {
		t.Fatal(err)
	}
	_ = sample().WriteMermaid(&m2)
	if err := sample().WriteDOT(&d1); err != nil {
		t.Fatal(err)
	}
	_ = sample().WriteDOT(&d2)
	if m1.String() != m2.String() || d1.String() != d2.String() {
		t.Error("rendering is not deterministic")
	}
	for _, want := range []string{`s_kas_a["kas-a<br/>v1.37.1"]`, `==>|"x-kubernetes-peer-proxied: #quot;true#quot;"|`, `404 #lt;Not Found#gt;`,
		`subgraph cluster_s_kas_a["on kas-a"]`, "-.->", "classDef notfound"} {
		if !strings.Contains(m1.String(), want) {
			t.Errorf("mermaid lacks %q:\n%s", want, m1.String())
		}
	}
	for _, want := range []string{`label="kas-a\nv1.37.1"`, `label="x-kubernetes-peer-proxied: \"true\""`, "subgraph cluster_s_kas_a {", "style=dashed", "shape=hexagon"} {
		if !strings.Contains(d1.String(), want) {
			t.Errorf("dot lacks %q:\n%s", want, d1.String())
		}
	}
	if strings.Count(m1.String(), `s_kas_a["kas-a`) != 1 {
		t.Error("a node added twice is drawn twice")
	}
}

func TestIDAndWrap(t *testing.T) {
	if got := ID("s_kas-a.example"); got != "s_kas_a_example" {
		t.Errorf("ID = %q", got)
	}
	if got := ID("1.36"); got != "n1_36" {
		t.Errorf("ID = %q", got)
	}
	if got := Wrap("one two three four", 9); got != "one two\nthree\nfour" {
		t.Errorf("Wrap = %q", got)
	}
}

// TestKeysThatLookAlike: keys that ID makes one identifier (servers kas-a and kas.a) stay
// apart in both renderers, and labels from outside are quoted, never markup.
func TestKeysThatLookAlike(t *testing.T) {
	g := &Graph{}
	a := g.Node("kas-a", "kas-a", Server)
	dot := g.Node("kas.a", `kas.a"];x[label="evil`, Server)
	third := g.Node("kas_a_2", "kas_a_2", Server)
	if a == dot || dot == third || a == third {
		t.Fatalf("IDs %q %q %q: two keys share a node", a, dot, third)
	}
	if again := g.Node("kas.a", "", Server); again != dot {
		t.Errorf("kas.a again: %q, want %q", again, dot)
	}
	g.Node("html", `<img src=x onerror=alert(1)> & #quot;`, Server)
	g.Node("esc", "kas-c\x1b]0;pwned\x07", Server)
	var m, d bytes.Buffer
	_ = g.WriteMermaid(&m)
	_ = g.WriteDOT(&d)
	for _, id := range []string{a, dot, third} {
		if n := strings.Count(m.String(), "    "+id+"["); n != 1 {
			t.Errorf("mermaid: node %s drawn %d times:\n%s", id, n, m.String())
		}
		if n := strings.Count(d.String(), "    "+id+" ["); n != 1 {
			t.Errorf("dot: node %s drawn %d times:\n%s", id, n, d.String())
		}
	}
	if strings.Contains(m.String(), "<img") || !strings.Contains(m.String(), "#lt;img src=x onerror=alert(1)#gt; #amp; #35;quot;") {
		t.Errorf("mermaid label not escaped:\n%s", m.String())
	}
	if !strings.Contains(d.String(), `label="kas-c\\x1b]0;pwned\\x07"`) || !strings.Contains(m.String(), `["kas-c\x1b]0;pwned\x07"]`) {
		t.Errorf("control characters not escaped:\n%s\n%s", d.String(), m.String())
	}
	if !strings.Contains(d.String(), `label="kas.a\"];x[label=\"evil"`) {
		t.Errorf("dot label not quoted:\n%s", d.String())
	}
}
