package architecture

import (
	"bufio"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// packageRow is one row of docs/architecture.md's package table: the package and the
// main-module packages its "depends on" cell names.
type packageRow struct {
	line int
	deps []string
}

// modulePath matches a main-module package as the table names it, in backquotes.
var modulePath = regexp.MustCompile("`((?:pkg|internal|test|cmd|deploy)(?:/[a-z0-9_.-]+)*)`")

// packageTable reads the "## Packages" table of docs/architecture.md: package → row.
func packageTable(t *testing.T, doc string) map[string]packageRow {
	f, err := os.Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string]packageRow{}
	in := false
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		n++
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == "## Packages"
			continue
		}
		if !in || !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		name := modulePath.FindStringSubmatch(cells[0])
		if name == nil || len(cells) < 4 {
			t.Errorf("docs/architecture.md:%d: a package row has four cells, the first the package in backquotes", n)
			continue
		}
		var deps []string
		for _, m := range modulePath.FindAllStringSubmatch(cells[len(cells)-1], -1) {
			deps = append(deps, m[1])
		}
		sort.Strings(deps)
		rows[name[1]] = packageRow{line: n, deps: slices.Compact(deps)}
	}
	if len(rows) == 0 {
		t.Fatal("docs/architecture.md has no package table under \"## Packages\"")
	}
	return rows
}

// goListImports is `go list` of the main module (test/e2e is a module of its own): each
// package with the main-module packages its non-test files import.
func goListImports(t *testing.T, root string) map[string][]string {
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		var own []string
		for _, imp := range f[1:] {
			if rest, ok := strings.CutPrefix(imp, module); ok {
				own = append(own, rest)
			}
		}
		sort.Strings(own)
		pkgs[strings.TrimPrefix(f[0], module)] = own
	}
	return pkgs
}

// TestPackageTable: docs/architecture.md's package table has a row for every package `go
// list` finds and none for a package that is gone, and each row's "depends on" names exactly
// the main-module packages the package imports.
func TestPackageTable(t *testing.T) {
	root := moduleRoot(t)
	rows := packageTable(t, filepath.Join(root, "docs", "architecture.md"))
	pkgs := goListImports(t, root)
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages under %s: not the module", len(pkgs), root)
	}
	for _, p := range slices.Sorted(maps.Keys(pkgs)) {
		row, ok := rows[p]
		switch {
		case !ok:
			t.Errorf("%s has no row in docs/architecture.md's package table (it imports: %s)", p, orNone(pkgs[p]))
		case !slices.Equal(row.deps, pkgs[p]):
			t.Errorf("docs/architecture.md:%d: %s depends on %s, the table says %s", row.line, p, orNone(pkgs[p]), orNone(row.deps))
		}
	}
	for p, row := range rows {
		if _, ok := pkgs[p]; !ok && p != "test/e2e" { // test/e2e: its own module
			t.Errorf("docs/architecture.md:%d: %s is in the package table but not in the module", row.line, p)
		}
	}
}

// moduleRoot is the main module's directory.
func moduleRoot(t *testing.T) string {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func orNone(l []string) string {
	if len(l) == 0 {
		return "—"
	}
	return strings.Join(l, ", ")
}
