package architecture

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The caps on every function of mvpctl's hand-written code. A function is at most a page, so
// that each step of a decision reads at a glance, as the apiserver's own filter does; and it
// has at most 25 paths through it, counted as gocyclo counts them: 1, plus one for each if,
// for, range, case other than default, select case other than default, && and ||. A function
// over either cap is split by what it decides.
const (
	maxFunctionLines = 80
	maxCyclomatic    = 25
)

// capsExempt says, for a path relative to the module root, why the caps do not apply to it,
// or "" when they do. Covered: every Go file of cmd/, pkg/, internal/ and deploy/ but these.
func capsExempt(rel string) string {
	switch name := filepath.Base(rel); {
	case rel == "test" || strings.HasPrefix(rel, "test/"):
		return "test support (fakes, test-input tools, these checks, the e2e module): not part of mvpctl; their long functions are scenarios read top to bottom"
	case name == "testdata":
		return "input files of tests (profilerecord's imitation of upstream source): not built"
	case strings.HasPrefix(name, ".") && rel != ".":
		return "not the module's source"
	case strings.HasSuffix(name, "_test.go"):
		return "tests: a test's table is as long as its cases"
	case strings.HasSuffix(name, "_gen.go"):
		return "generated (fastdecode_gen.go by tools/gen/snapdecode, which the caps cover): its shape follows the types it decodes"
	}
	return ""
}

// cyclomatic is gocyclo's count for one function: 1, plus one for each if, for, range, case
// other than default, select case other than default, && and ||, function literals inside it
// included.
func cyclomatic(fd *ast.FuncDecl) int {
	n := 1
	ast.Inspect(fd, func(node ast.Node) bool {
		switch node := node.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			n++
		case *ast.CaseClause:
			if node.List != nil {
				n++
			}
		case *ast.CommClause:
			if node.Comm != nil {
				n++
			}
		case *ast.BinaryExpr:
			if node.Op == token.LAND || node.Op == token.LOR {
				n++
			}
		}
		return true
	})
	return n
}

// funcName is a function's name, a method's with its receiver's type: "Tracker.Observe".
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	switch t := typ.(type) {
	case *ast.IndexExpr:
		typ = t.X
	case *ast.IndexListExpr:
		typ = t.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// overCaps lists "file:name lines N" and "file:name cyclomatic N" (file relative to root) for
// every function and method of the Go files under root that capsExempt leaves in and that is
// longer than maxLines (from its signature to its closing brace) or has more than maxCyclo
// paths.
func overCaps(t *testing.T, root string, maxLines, maxCyclo int) []string {
	fset := token.NewFileSet()
	var over []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if capsExempt(rel) != "" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(rel, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxLines {
				over = append(over, rel+":"+funcName(fd)+" lines "+strconv.Itoa(n))
			}
			if n := cyclomatic(fd); n > maxCyclo {
				over = append(over, rel+":"+funcName(fd)+" cyclomatic "+strconv.Itoa(n))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(over)
	return over
}

// TestFunctionCaps: no function of mvpctl's hand-written code is longer than a page or has
// more than maxCyclomatic paths.
func TestFunctionCaps(t *testing.T) {
	for _, f := range overCaps(t, moduleRoot(t), maxFunctionLines, maxCyclomatic) {
		t.Errorf("%s: over the caps (%d lines, %d paths); split it by what it decides", f, maxFunctionLines, maxCyclomatic)
	}
}

// TestOverCapsFinds: a long function and a branchy one are found, by file and receiver; a
// short one, a test file's, a generated file's and those under test/ and testdata are not.
func TestOverCapsFinds(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("\t_ = 1\n", 7)
	branchy := strings.Repeat("\tif x {\n\t}\n", 3)
	write := writerIn(t, dir)
	write("pkg/a/a.go", "package a\n\ntype T struct{}\n\nfunc long() {\n"+long+"}\n\nfunc short() {}\n\nfunc (*T) branchy(x bool) {\n"+branchy+"}\n")
	for _, name := range []string{"pkg/a/a_test.go", "pkg/a/z_gen.go", "test/fake/f.go", "pkg/a/testdata/d.go"} {
		write(name, "package a\n\nfunc longElsewhere(x bool) {\n"+long+branchy+"}\n")
	}
	got := overCaps(t, dir, 8, 3)
	want := []string{"pkg/a/a.go:T.branchy cyclomatic 4", "pkg/a/a.go:long lines 9"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("overCaps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCyclomaticCounts: each construct gocyclo counts adds one path; default cases, else and
// plain statements add none; a function literal's paths are its enclosing function's.
func TestCyclomaticCounts(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       int
	}{
		{"straight", "x := 1\n_ = x", 1},
		{"if else", "if a {\n} else if b {\n} else {\n}", 3},
		{"for and range", "for i := 0; i < 1; i++ {\n}\nfor range s {\n}", 3},
		{"switch", "switch {\ncase a:\ncase b, a:\ndefault:\n}", 3},
		{"type switch", "switch v.(type) {\ncase int:\ncase string:\ndefault:\n}", 3},
		{"select", "select {\ncase <-c:\ncase c <- 1:\ndefault:\n}", 3},
		{"and or", "_ = a && b || !a", 3},
		{"function literal", "f := func() {\nif a {\n}\n}\nf()", 2},
	} {
		src := "package a\n\nfunc f(a, b bool, s []int, c chan int, v any) {\n" + tc.body + "\n}\n"
		f, err := parser.ParseFile(token.NewFileSet(), "a.go", src, 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := cyclomatic(f.Decls[0].(*ast.FuncDecl)); got != tc.want {
			t.Errorf("%s: cyclomatic = %d, want %d", tc.name, got, tc.want)
		}
	}
}
