package architecture

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// ruleCell is "`file.go` (`Name`, `Name`)", or a file alone.
var ruleCell = regexp.MustCompile("^`([^`]+\\.go)`(?: \\((.*)\\))?$")

// ruleTablePlaces reads docs/architecture.md's "Where is the rule that decides X?" table: for
// each row, the places its rule and its decision columns name, as "path: Name, Name" (paths
// relative to the module; a decision file without a directory is pkg/route's).
func ruleTablePlaces(t *testing.T, root string) map[string][]string {
	f, err := os.Open(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	places := map[string][]string{}
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "### Where is the rule"):
			in = true
			continue
		case !in || !strings.HasPrefix(line, "|"):
			if in && len(places) > 0 {
				return places
			}
			continue
		}
		cols := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cols) != 3 || strings.HasPrefix(cols[1], "---") || cols[1] == "the rule" {
			continue
		}
		for _, c := range cols[1:] {
			m := ruleCell.FindStringSubmatch(strings.TrimSpace(c))
			if m == nil {
				t.Errorf("docs/architecture.md, where is the rule: %q is not `file.go` (`Name`, ...)", c)
				continue
			}
			path := m[1]
			if !strings.Contains(path, "/") {
				path = "pkg/route/" + path
			}
			places[path] = append(places[path], strings.Fields(strings.NewReplacer("`", "", ",", "").Replace(m[2]))...)
		}
	}
	return places
}

// topLevelNames are the functions, methods, types, constants and variables path declares.
func topLevelNames(path string) (map[string]bool, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			names[d.Name.Name] = true
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names[s.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names[n.Name] = true
					}
				}
			}
		}
	}
	return names, nil
}

// TestRuleTablePointsAtOnePlace: every file the "Where is the rule" table names exists and
// declares each name the table gives it, so a reader who follows it finds the rule there.
func TestRuleTablePointsAtOnePlace(t *testing.T) {
	root := moduleRoot(t)
	places := ruleTablePlaces(t, root)
	if len(places) < 5 {
		t.Fatalf("docs/architecture.md's where-is-the-rule table names %d files", len(places))
	}
	for path, want := range places {
		names, err := topLevelNames(filepath.Join(root, path))
		if err != nil {
			t.Errorf("where is the rule: %v", err)
			continue
		}
		for _, n := range want {
			if !names[n] {
				t.Errorf("where is the rule: %s declares no %s", path, n)
			}
		}
	}
}
