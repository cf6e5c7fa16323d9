// Package architecture checks the shape docs/architecture.md draws: every package of the main
// module stands on a floor, and imports only packages on lower floors.
package architecture

import (
	"bufio"
	"go/build"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/mvpctl/mvpctl/"

// floorLine is one line of the floors block of docs/architecture.md:
// "floor 3  models: pkg/route, pkg/peerdiscovery".
var floorLine = regexp.MustCompile(`^floor (\d+) +[^:]+: (.+)$`)

// floors reads the floors block of docs/architecture.md: package path (relative to the
// module; "dir/..." for every package below dir) → floor.
func floors(t *testing.T, root string) map[string]int {
	f, err := os.Open(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]int{}
	for sc := bufio.NewScanner(f); sc.Scan(); {
		g := floorLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if g == nil {
			continue
		}
		n, _ := strconv.Atoi(g[1])
		for _, p := range strings.Split(g[2], ",") {
			m[strings.Trim(strings.TrimSpace(p), "`")] = n
		}
	}
	if len(m) == 0 {
		t.Fatal("docs/architecture.md has no floors block (lines \"floor N  name: pkg, pkg\")")
	}
	return m
}

// floorOf is pkg's floor in fl, by exact path or the longest "dir/..." that holds it.
func floorOf(fl map[string]int, pkg string) (int, bool) {
	if n, ok := fl[pkg]; ok {
		return n, true
	}
	best, n := -1, 0
	for p, f := range fl {
		if dir, ok := strings.CutSuffix(p, "/..."); ok && strings.HasPrefix(pkg+"/", dir+"/") && len(dir) > best {
			best, n = len(dir), f
		}
	}
	return n, best >= 0
}

// imports lists every package of the main module (test/e2e is a module of its own) with the
// main-module packages its non-test files import.
func imports(t *testing.T, root string) map[string][]string {
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if name := d.Name(); rel == "test/e2e" || name == "testdata" || (strings.HasPrefix(name, ".") && rel != ".") {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(path, 0)
		if err != nil {
			if _, none := err.(*build.NoGoError); none {
				return nil
			}
			return err
		}
		var own []string
		for _, imp := range p.Imports {
			if rest, ok := strings.CutPrefix(imp, module); ok {
				own = append(own, rest)
			}
		}
		out[rel] = own
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFloors: every package is on a floor of docs/architecture.md, and no package imports one
// on its own floor or above it.
func TestFloors(t *testing.T) {
	root := moduleRoot(t)
	fl := floors(t, root)
	pkgs := imports(t, root)
	if len(pkgs) < 10 {
		t.Fatalf("found %d packages under %s: not the module", len(pkgs), root)
	}
	for _, p := range slices.Sorted(maps.Keys(pkgs)) {
		pf, ok := floorOf(fl, p)
		if !ok {
			t.Errorf("%s is on no floor: add it to the floors block of docs/architecture.md", p)
			continue
		}
		for _, imp := range pkgs[p] {
			if f, ok := floorOf(fl, imp); ok && f >= pf {
				t.Errorf("%s (floor %d) imports %s (floor %d): imports go down the floors only (docs/architecture.md)", p, pf, imp, f)
			}
		}
	}
}

// TestFloorOf: exact paths win, then the longest "dir/..." that holds the package.
func TestFloorOf(t *testing.T) {
	fl := map[string]int{"pkg/a": 1, "test/...": 7, "test/fake/...": 6, "internal/gen/...": 5}
	for _, c := range []struct {
		pkg   string
		floor int
		ok    bool
	}{
		{"pkg/a", 1, true},
		{"pkg/ab", 0, false},
		{"test/tools/x", 7, true},
		{"test/fake/apiserver", 6, true},
		{"internal/gen", 5, true},
		{"internal/generator", 0, false},
	} {
		f, ok := floorOf(fl, c.pkg)
		if f != c.floor || ok != c.ok {
			t.Errorf("floorOf(%s) = %d, %t; want %d, %t", c.pkg, f, ok, c.floor, c.ok)
		}
	}
}

// TestInternalIsLow: internal/ holds the low helpers only, so that the folder stands below every
// package that uses it: no package of internal/ imports a package outside internal/ that itself
// imports one of internal/ (what only the commands use lives in cmd/mvpctl/internal/, the
// build-time programs in tools/).
func TestInternalIsLow(t *testing.T) {
	pkgs := imports(t, moduleRoot(t))
	inInternal := func(p string) bool { return strings.HasPrefix(p, "internal/") }
	for _, p := range slices.Sorted(maps.Keys(pkgs)) {
		if !inInternal(p) {
			continue
		}
		for _, imp := range pkgs[p] {
			if inInternal(imp) {
				continue
			}
			if i := slices.IndexFunc(pkgs[imp], inInternal); i >= 0 {
				t.Errorf("%s imports %s, which imports %s: internal/ is for helpers below the library; move %s up (cmd/mvpctl/internal/ if only the commands use it)", p, imp, pkgs[imp][i], p)
			}
		}
	}
}
