package architecture

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// serverChanges lists "file:line: function" for every function of the Go package in dir that
// changes a snapshot value it is given: an assignment (or ++/--) through a parameter or
// receiver of a pointer-to-snapshot type (*snapshot.Server, *snapshot.Snapshot, ...) or a
// pointer taken into one (s := &snap.Servers[i]), or a call of an Add or Set method on one. pkg/mvp decides; what applies a decision to a server
// lives with the steps (pkg/simulate).
func serverChanges(t *testing.T, dir string) []string {
	fset := token.NewFileSet()
	var hits []string
	for _, pf := range productionFiles(t, fset, dir) {
		path := pf.path
		for _, decl := range pf.file.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			given := snapshotPointers(fd)
			if len(given) == 0 {
				continue
			}
			hit := func(n ast.Node) {
				hits = append(hits, filepath.Base(path)+":"+strconv.Itoa(fset.Position(n.Pos()).Line)+": "+fd.Name.Name)
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.AssignStmt:
					for i, r := range n.Rhs { // s := &snap.Servers[i] points into what was given
						if u, ok := r.(*ast.UnaryExpr); ok && u.Op == token.AND && given[rootIdent(u.X)] && i < len(n.Lhs) {
							if id, ok := n.Lhs[i].(*ast.Ident); ok {
								given[id.Name] = true
							}
						}
					}
					for _, l := range n.Lhs {
						if _, plain := l.(*ast.Ident); !plain && given[rootIdent(l)] {
							hit(n)
							break
						}
					}
				case *ast.IncDecStmt:
					if given[rootIdent(n.X)] {
						hit(n)
					}
				case *ast.CallExpr:
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok && given[rootIdent(sel.X)] &&
						(strings.HasPrefix(sel.Sel.Name, "Add") || strings.HasPrefix(sel.Sel.Name, "Set")) {
						hit(n)
					}
				}
				return true
			})
		}
	}
	sort.Strings(hits)
	return hits
}

// parsedFile is a Go file and its path.
type parsedFile struct {
	path string
	file *ast.File
}

// productionFiles are the non-test Go files of dir, parsed.
func productionFiles(t *testing.T, fset *token.FileSet, dir string) []parsedFile {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var out []parsedFile
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, parsedFile{path, f})
	}
	return out
}

// snapshotPointers are the names of fd's receiver and parameters of a type *snapshot.T.
func snapshotPointers(fd *ast.FuncDecl) map[string]bool {
	out := map[string]bool{}
	fields := fd.Type.Params.List
	if fd.Recv != nil {
		fields = append(append([]*ast.Field(nil), fd.Recv.List...), fields...)
	}
	for _, fl := range fields {
		star, ok := fl.Type.(*ast.StarExpr)
		if !ok {
			continue
		}
		if sel, ok := star.X.(*ast.SelectorExpr); ok {
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "snapshot" {
				for _, n := range fl.Names {
					out[n.Name] = true
				}
			}
		}
	}
	return out
}

// rootIdent is the name at the root of a selector, index or star expression ("" for none).
func rootIdent(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x.Name
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return ""
		}
	}
}

// TestMvpRulesOnly: no function of pkg/mvp changes a server or a snapshot it is given.
func TestMvpRulesOnly(t *testing.T) {
	for _, h := range serverChanges(t, filepath.Join(moduleRoot(t), "pkg", "mvp")) {
		t.Errorf("pkg/mvp/%s changes a snapshot value it is given: pkg/mvp decides (a rule), the steps apply it (pkg/simulate)", h)
	}
}

// TestServerChangesFinds: the scan finds a planted change of a server through a parameter (a
// field, a nested field, an Add method) and leaves alone reads, a local copy and other types.
func TestServerChangesFinds(t *testing.T) {
	dir := t.TempDir()
	writerIn(t, dir)("m.go", `package mvp

import "x/snapshot"

func Crash(srv *snapshot.Server, why string) {
	srv.Reachable, srv.Error = false, why
}

func Note(srv *snapshot.Server) {
	srv.PeerProxy.AddEvidence(0, "x")
}

func Drop(snap *snapshot.Snapshot) {
	for i := range snap.Servers {
		snap.Servers[i].PeerProxy.DroppedByPeers = true
	}
}

func Rebuild(snap *snapshot.Snapshot) {
	for i := range snap.Servers {
		s := &snap.Servers[i]
		s.PeerProxy.DroppedByPeers = true
	}
}

func Decide(srv *snapshot.Server, v snapshot.Version) bool {
	copied := *srv
	copied.Reachable = false
	on := srv.Reachable
	return on && v.Minor > 0
}

func (p ProxySetup) PeerProxy(v snapshot.Version) snapshot.PeerProxy {
	var pp snapshot.PeerProxy
	pp.GateEnabled = nil
	pp.AddEvidence(0, "x")
	return pp
}
`)
	got := serverChanges(t, dir)
	want := []string{"m.go:15: Drop", "m.go:6: Crash", "m.go:10: Note", "m.go:22: Rebuild"}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("hits:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
