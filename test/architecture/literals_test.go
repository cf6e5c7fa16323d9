package architecture

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// apiserverLiteral is a text kube-apiserver defines — a header, the body of one of its
// answers, a metric family — and the pkg/mvp name that holds it. A release that changes one
// of them must be fixed in one place, so no other package may spell it out.
type apiserverLiteral struct {
	text string
	// anyCase: header names are case-insensitive, so every spelling counts.
	anyCase bool
	// home is the pkg/mvp identifier to use instead.
	home string
}

var apiserverLiterals = []apiserverLiteral{
	{"X-Kubernetes-Peer-Proxied", true, "mvp.LoopPreventionHeader"},
	{"Error getting ip and port info of the remote server while proxying", false, "mvp.EndpointResolutionMessage"},
	{"error trying to reach service", false, "mvp.TransportMessagePrefix"},
	{"404 page not found", false, "mvp.NotFoundText"},
	{"the server could not find the requested resource", false, "mvp.NotFoundMessage"},
	{"apiserver_rerouted_request_total", false, "mvp.ReroutedMetric"},
	{"apiserver_peer_proxy_errors_total", false, "mvp.PeerProxyErrorsMetric"},
	{"apiserver_peer_discovery_sync_errors_total", false, "mvp.PeerDiscoverySyncErrorsMetric"},
}

// literalHits lists "file:line: literal (use home)" for every string literal in the non-test
// Go files under root (relative to root; at, the folder or file where lits live, test/e2e and
// this package left out) that contains one of lits. Comments may cite the texts; code may not.
func literalHits(t *testing.T, root string, lits []apiserverLiteral, at string) []string {
	var hits []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch name := d.Name(); {
			case rel == at, rel == "test/e2e", rel == "test/architecture", name == "testdata",
				strings.HasPrefix(name, ".") && rel != ".":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || rel == at {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for _, l := range lits {
				if strings.Contains(s, l.text) || (l.anyCase && strings.Contains(strings.ToLower(s), strings.ToLower(l.text))) {
					hits = append(hits, rel+":"+strconv.Itoa(fset.Position(lit.Pos()).Line)+": "+strconv.Quote(l.text)+" (use "+l.home+")")
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(hits)
	return hits
}

// TestApiserverLiteralsLiveInMVP: the texts kube-apiserver defines are spelled out in pkg/mvp
// only; every other package (the probe's classifier, the router's words, the fakes under
// test/) uses pkg/mvp's names.
func TestApiserverLiteralsLiveInMVP(t *testing.T) {
	for _, h := range literalHits(t, moduleRoot(t), apiserverLiterals, "pkg/mvp") {
		t.Errorf("%s: an apiserver text outside pkg/mvp", h)
	}
}

// TestLiteralHitsFinds: the scan finds a literal in code, in any case for a header, and not in
// a comment or a test file.
func TestLiteralHitsFinds(t *testing.T) {
	dir := t.TempDir()
	write := writerIn(t, dir)
	write("a/a.go", "package a\n\n// \"404 page not found\" in a comment is fine.\nconst body = \"404 page not found\\n\"\nvar h = `x-kubernetes-peer-proxied: true`\n")
	write("a/a_test.go", "package a\n\nconst captured = \"404 page not found\"\n")
	write("pkg/mvp/m.go", "package mvp\n\nconst NotFoundText = \"404 page not found\"\n")
	got := literalHits(t, dir, apiserverLiterals, "pkg/mvp")
	want := []string{
		`a/a.go:4: "404 page not found" (use mvp.NotFoundText)`,
		`a/a.go:5: "X-Kubernetes-Peer-Proxied" (use mvp.LoopPreventionHeader)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("hits:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// writerIn writes the files of a planted tree under dir, failing the test on an error.
func writerIn(t *testing.T, dir string) func(name, src string) {
	return func(name, src string) {
		t.Helper()
		if err := writeFile(filepath.Join(dir, name), src); err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}
