package architecture

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// What TestNoTextAsData flags. Production code decides on typed values (an outcome, a 503
// kind, an exclusion reason, a tone); a sentence is made where a person reads it and is never
// read back. A comparison reads text back when it is
//
//   - a call to strings.HasPrefix, HasSuffix, Contains, EqualFold, CutPrefix, CutSuffix,
//     TrimPrefix or TrimSuffix, or an == / != comparison, or a case of a switch,
//   - one of whose operands is message text: a string literal of more than one word (with a
//     space or tab once leading and trailing ones are trimmed: "served by", not "tls: " or
//     " 401"), or a pkg/mvp string constant (referred to as mvp.Name) whose value is one,
//
// in a non-test Go file of the module outside test/e2e (its own module), testdata, this
// package and the wording files: files named *wording*.go or say.go, which make sentences.
// textAsDataAllowed lists the legitimate readings of text that comes from outside (an HTTP
// body, a kubeconfig, a log), each with its reason; a key is "file: operand" as reported.
var textAsDataAllowed = map[string]string{
	"internal/cli/typos.go: \"unknown flag: --\"":                                 "cobra's flag-parsing error is a sentence; the hint reads the flag's name from it",
	"internal/apiclient/client.go: \"getting credentials: \"":                     "client-go's exec credential plugin reports its failure as a wrapped error's text",
	"internal/apiclient/client.go: \"Client.Timeout exceeded\"":                   "net/http reports a client timeout only in its error's text",
	"internal/apiclient/errors.go: \"getting credentials: \"":                     "client-go's exec credential plugin reports its failure as a wrapped error's text",
	"internal/apiclient/errors.go: \"server gave HTTP response to HTTPS client\"": "net/http reports an HTTP answer to a TLS handshake only in its error's text",
	"internal/apiclient/errors.go: \"unexpected end of JSON input\"":              "encoding/json's truncated-input error is a plain errors.New",
	"internal/apiclient/errors.go: \"unexpected end\"":                            "a decoder's truncated-input error, in the words encoding/json and its peers use",
	"internal/apiclient/errors.go: \"<!doctype html\"":                            "an HTTP body that is a web page (a proxy's or a load balancer's) instead of an apiserver's answer",
	"pkg/mvp/aggregated_checks.go: \"Client.Timeout exceeded\"":                   "the aggregator's Available condition message, read from the cluster, carries Go's error text",
	"pkg/mvp/aggregated_checks.go: \"context deadline exceeded\"":                 "the aggregator's Available condition message, read from the cluster, carries Go's error text",
	"pkg/mvp/aggregated_checks.go: \"timed out waiting for\"":                     "the aggregator's Available condition message, read from the cluster, carries Go's error text",
	"pkg/mvp/aggregated_checks.go: \"connection refused\"":                        "the aggregator's Available condition message, read from the cluster, carries Go's error text",
	"pkg/probe/classify.go: mvp.AggregatorUnavailableMessage":                     "the probe classifies the aggregator's 503 body by the text pkg/mvp holds",
	"pkg/probe/classify.go: mvp.NotFoundText":                                     "the probe classifies an apiserver's 404 body by the text pkg/mvp holds",
	"pkg/watch/metrics.go: \"connection refused\"":                                "a scrape's failure is a Go error whose kind is only in its text",
	"pkg/watch/metrics.go: \"deadline exceeded\"":                                 "a scrape's failure is a Go error whose kind is only in its text",
	"pkg/watch/metrics.go: \"no such host\"":                                      "a scrape's failure is a Go error whose kind is only in its text",
}

// textCompareFuncs are the strings functions that compare or match text.
var textCompareFuncs = map[string]bool{
	"HasPrefix": true, "HasSuffix": true, "Contains": true, "EqualFold": true,
	"CutPrefix": true, "CutSuffix": true, "TrimPrefix": true, "TrimSuffix": true,
}

// textAsDataHits lists "file:line: operand" for every comparison of message text in the Go
// files under root (see textAsDataAllowed for what counts); mvpConsts are the pkg/mvp string
// constants whose value contains a space.
func textAsDataHits(t *testing.T, root string) []string {
	mvpConsts := spacedConsts(t, filepath.Join(root, "pkg", "mvp"))
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
			case rel == "test/e2e", rel == "test/architecture", name == "testdata",
				strings.HasPrefix(name, ".") && rel != ".":
				return filepath.SkipDir
			}
			return nil
		}
		base := filepath.Base(rel)
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") ||
			strings.Contains(base, "wording") || base == "say.go" {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, op := range textComparisons(f, mvpConsts) {
			hits = append(hits, rel+":"+strconv.Itoa(fset.Position(op.Pos()).Line)+": "+operandText(op))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hits // in the walk's order: by file, then by position
}

// textComparisons are the message-text operands of f's comparisons.
func textComparisons(f *ast.File, mvpConsts map[string]bool) []ast.Expr {
	var ops []ast.Expr
	check := func(es ...ast.Expr) {
		for _, e := range es {
			if isMessageText(e, mvpConsts) {
				ops = append(ops, e)
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && textCompareFuncs[sel.Sel.Name] {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "strings" {
					check(n.Args...)
				}
			}
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				check(n.X, n.Y)
			}
		case *ast.SwitchStmt:
			if n.Tag == nil {
				return true
			}
			for _, s := range n.Body.List {
				check(s.(*ast.CaseClause).List...)
			}
		}
		return true
	})
	return ops
}

// isMessageText: e is a string literal of more than one word, or mvp.Name of such a constant.
func isMessageText(e ast.Expr, mvpConsts map[string]bool) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		s, err := strconv.Unquote(e.Value)
		return e.Kind == token.STRING && err == nil && strings.ContainsAny(strings.TrimSpace(s), " \t")
	case *ast.SelectorExpr:
		pkg, ok := e.X.(*ast.Ident)
		return ok && pkg.Name == "mvp" && mvpConsts[e.Sel.Name]
	case *ast.ParenExpr:
		return isMessageText(e.X, mvpConsts)
	}
	return false
}

func operandText(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Value
	case *ast.SelectorExpr:
		return e.X.(*ast.Ident).Name + "." + e.Sel.Name
	case *ast.ParenExpr:
		return operandText(e.X)
	}
	return "?"
}

// spacedConsts are the names of the string constants declared in dir's non-test files whose
// value is a literal of more than one word.
func spacedConsts(t *testing.T, dir string) map[string]bool {
	out := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i < len(vs.Values) && isMessageText(vs.Values[i], nil) {
						out[name.Name] = true
					}
				}
			}
		}
	}
	return out
}

// TestNoTextAsData: production code outside the wording files does not compare message text;
// the allowed readings of outside text are listed with a reason, and each is still needed.
func TestNoTextAsData(t *testing.T) {
	used := map[string]bool{}
	for _, h := range textAsDataHits(t, moduleRoot(t)) {
		file, rest, _ := strings.Cut(h, ":")
		_, operand, _ := strings.Cut(rest, ": ")
		key := file + ": " + operand
		if _, ok := textAsDataAllowed[key]; ok {
			used[key] = true
			continue
		}
		t.Errorf("%s: compares message text; decide on a typed value (or, for text from outside, add it to textAsDataAllowed with a reason)", h)
	}
	for key := range textAsDataAllowed {
		if !used[key] {
			t.Errorf("textAsDataAllowed: %q matches nothing any more: remove it", key)
		}
	}
}

// TestTextAsDataHitsFinds: the scan finds a planted comparison of a sentence (by strings
// function, by ==, by switch case, by a pkg/mvp constant) and leaves alone single words, a
// wording file, a test file and comments.
func TestTextAsDataHitsFinds(t *testing.T) {
	dir := t.TempDir()
	write := writerIn(t, dir)
	write("pkg/mvp/m.go", "package mvp\n\nconst Said = \"a sentence\"\nconst Word = \"word\"\n")
	write("a/a.go", `package a

import ("strings"; "x/mvp")

// strings.HasPrefix(d, "in a comment") is fine.
func f(d string) bool {
	if strings.HasPrefix(d, "stated --runtime-config") || d == "as observed" || d == "local" {
		return true
	}
	switch d {
	case "not a word", "word":
	}
	return strings.Contains(d, mvp.Said) || strings.Contains(d, mvp.Word) || strings.HasPrefix(d, "404")
}
`)
	write("a/wording.go", "package a\n\nimport \"strings\"\n\nvar w = strings.HasPrefix(\"x\", \"a sentence\")\n")
	write("a/say.go", "package a\n\nvar s = \"x\" == \"a sentence\"\n")
	write("a/a_test.go", "package a\n\nvar s = \"x\" == \"a sentence\"\n")
	got := textAsDataHits(t, dir)
	want := []string{
		`a/a.go:7: "stated --runtime-config"`,
		`a/a.go:7: "as observed"`,
		`a/a.go:11: "not a word"`,
		`a/a.go:13: mvp.Said`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("hits:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
