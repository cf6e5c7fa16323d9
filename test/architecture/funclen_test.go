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

// maxRouteFunctionLines is the longest a function of pkg/route may be: a page, so that each
// step of the decision reads at a glance, as the apiserver's own filter does.
const maxRouteFunctionLines = 80

// funcLengths lists "file:name lines" for every function and method of the non-test Go files
// in dir longer than limit lines (from its signature to its closing brace).
func funcLengths(t *testing.T, dir string, limit int) []string {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var long []string
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > limit {
				long = append(long, filepath.Base(path)+":"+fd.Name.Name+" "+strconv.Itoa(n))
			}
		}
	}
	sort.Strings(long)
	return long
}

// TestRouteFunctionLength: no function in pkg/route is longer than a page.
func TestRouteFunctionLength(t *testing.T) {
	for _, f := range funcLengths(t, filepath.Join("..", "..", "pkg", "route"), maxRouteFunctionLines) {
		t.Errorf("pkg/route/%s lines: longer than %d; split the decision or its wording", f, maxRouteFunctionLines)
	}
}

// TestFuncLengthsFinds: a long function is found, a short one and a test file's are not.
func TestFuncLengthsFinds(t *testing.T) {
	dir := t.TempDir()
	body := strings.Repeat("\t_ = 1\n", 5)
	if err := writeFile(filepath.Join(dir, "a.go"), "package a\n\nfunc long() {\n"+body+"}\n\nfunc short() {}\n"); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(filepath.Join(dir, "a_test.go"), "package a\n\nfunc longTest() {\n"+body+"}\n"); err != nil {
		t.Fatal(err)
	}
	if got := funcLengths(t, dir, 6); len(got) != 1 || got[0] != "a.go:long 7" {
		t.Errorf("funcLengths = %q, want [a.go:long 7]", got)
	}
}
