package architecture

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

// packageRow is one row of docs/architecture.md's package table: its line, its "what it is"
// cell and the main-module packages its "depends on" cell names.
type packageRow struct {
	line int
	what string
	deps []string
}

// modulePath matches a main-module package as the table names it, in backquotes.
var modulePath = regexp.MustCompile("`((?:pkg|internal|test|cmd|tools|deploy)(?:/[a-z0-9_.-]+)*)`")

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
		rows[name[1]] = packageRow{line: n, what: strings.TrimSpace(cells[1]), deps: slices.Compact(deps)}
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
// list` finds and none for a package that is gone, each row's "what it is" is one sentence
// (oneSentence) and each row's "depends on" names exactly the main-module packages the
// package imports.
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
	checkWhatItIs(t, rows)
	for p, row := range rows {
		if _, ok := pkgs[p]; !ok && p != "test/e2e" { // test/e2e: its own module
			t.Errorf("docs/architecture.md:%d: %s is in the package table but not in the module", row.line, p)
		}
	}
}

// maxWhatItIs is the longest "what it is" cell, in characters of its Markdown: one sentence
// that fits a screen; what more there is to say goes below the table ("In more detail").
const maxWhatItIs = 250

// rowsStillWaiting are the rows whose "what it is" may still be more than one sentence, with
// why. Every other row is held to oneSentence. A row listed here that is one sentence fails
// too, so that the list empties as the rows are rewritten.
var rowsStillWaiting = map[string]string{}

// checkWhatItIs fails for each row whose "what it is" is not one sentence, naming its line.
func checkWhatItIs(t *testing.T, rows map[string]packageRow) {
	for _, p := range slices.Sorted(maps.Keys(rows)) {
		row := rows[p]
		problem := oneSentence(row.what)
		_, waiting := rowsStillWaiting[p]
		switch {
		case problem != "" && !waiting:
			t.Errorf("docs/architecture.md:%d: %s's \"what it is\" %s: give the row one sentence and move the rest below the table", row.line, p, problem)
		case problem == "" && waiting:
			t.Errorf("docs/architecture.md:%d: %s's \"what it is\" is one sentence now: remove it from rowsStillWaiting", row.line, p)
		}
	}
	for p := range rowsStillWaiting {
		if _, ok := rows[p]; !ok {
			t.Errorf("rowsStillWaiting names %s, which has no row in the package table", p)
		}
	}
}

// codeSpan is a Markdown code span: what is in backquotes is a name, not prose.
var codeSpan = regexp.MustCompile("`[^`]*`")

// sentenceBreak is the end of a sentence followed by the start of another: a period, question
// or exclamation mark (and a closing parenthesis or quote), a space, and a capital letter or
// an opening parenthesis.
var sentenceBreak = regexp.MustCompile(`[.?!][)"']*\s+[A-Z(]`)

// oneSentence says why a "what it is" cell is not one sentence, or "" if it is: one terminal
// period, no sentence break outside code spans, at most maxWhatItIs characters.
func oneSentence(cell string) string {
	prose := codeSpan.ReplaceAllString(cell, "code")
	switch n := utf8.RuneCountInString(cell); {
	case cell == "":
		return "is empty"
	case !strings.HasSuffix(prose, ".") || strings.HasSuffix(prose, ".."):
		return "does not end with one period"
	case sentenceBreak.MatchString(prose):
		return fmt.Sprintf("has more than one sentence (%q)", sentenceBreak.FindString(prose))
	case n > maxWhatItIs:
		return fmt.Sprintf("has %d characters, more than %d", n, maxWhatItIs)
	}
	return ""
}

// offeredHeading is the part of docs/architecture.md that says what pkg/ offers other programs.
const offeredHeading = "### What pkg/ offers other programs"

// offeredPackages reads the packages named in backquotes under offeredHeading, to the next
// heading or the table: package → line.
func offeredPackages(t *testing.T, doc string) map[string]int {
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]int{}
	in := false
	for i, line := range strings.Split(string(b), "\n") {
		switch {
		case line == offeredHeading:
			in = true
		case in && (strings.HasPrefix(line, "#") || strings.HasPrefix(line, "|")):
			return named
		case in:
			for _, m := range modulePath.FindAllStringSubmatch(line, -1) {
				named[m[1]] = i + 1
			}
		}
	}
	if !in {
		t.Fatalf("docs/architecture.md has no %q", offeredHeading)
	}
	return named
}

// TestOfferedPackages: what docs/architecture.md says pkg/ offers other programs names
// packages of pkg/ that `go list` finds.
func TestOfferedPackages(t *testing.T) {
	root := moduleRoot(t)
	named := offeredPackages(t, filepath.Join(root, "docs", "architecture.md"))
	pkgs := goListImports(t, root)
	if len(named) < 5 {
		t.Fatalf("docs/architecture.md names %d packages under %q", len(named), offeredHeading)
	}
	for _, p := range slices.Sorted(maps.Keys(named)) {
		if _, ok := pkgs[p]; !ok || !strings.HasPrefix(p, "pkg/") {
			t.Errorf("docs/architecture.md:%d: %q names %s, which is no package of pkg/", named[p], offeredHeading, p)
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

// TestOneSentence: what oneSentence takes for one sentence and what not.
func TestOneSentence(t *testing.T) {
	long := "A" + strings.Repeat(" word", maxWhatItIs/5) + "."
	for _, c := range []struct {
		cell string
		one  bool
	}{
		{"The rules of kube-apiserver per version.", true},
		{"Pure functions (`route.Decide`, `Explain`) over a snapshot, e.g. the routing table.", true},
		{"A name in code may hold a period: `fastdecode_gen.go`. Then a second sentence.", false},
		{"Text in code is not prose: `Ends here. Begins here` and on.", true},
		{"The rules. Pure functions and constants.", false},
		{"Test support: fakes. (Formerly `pkg/probe/probetest`.)", false},
		{"Is it one? Yes it is.", false},
		{"No terminal period", false},
		{"Trails off...", false},
		{"Ends in code `a.b`.", true},
		{"", false},
		{long, false},
		{long[len(long)-maxWhatItIs:], true},
	} {
		if got := oneSentence(c.cell) == ""; got != c.one {
			t.Errorf("oneSentence(%q) = %q: one sentence %v, want %v", c.cell, oneSentence(c.cell), got, c.one)
		}
	}
}
