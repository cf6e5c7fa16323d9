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
//   - a call to strings.HasPrefix, HasSuffix, Contains, EqualFold, Cut, CutPrefix, CutSuffix,
//     TrimPrefix or TrimSuffix, or an == / != comparison, or a case of a switch,
//   - one of whose operands is message text: a string literal of more than one word (with a
//     space or tab once leading and trailing ones are trimmed: "served by", not "tls: " or
//     " 401"), or a pkg/mvp string constant (referred to as mvp.Name) whatever its words
//     ("stated" is one word, and a sentence's first), or a concatenation with one of these;
//   - or a call to one of those strings functions with another package's string constant
//     (pkg.Name, a module package but pkg/mvp, whatever its words): the start, end or part of
//     a text the module made, read back (a source's "manifest " prefix);
//   - or that compares a value read from a field that holds sentences (textFields: Evidence,
//     Notes, Note, Message, Reason), followed through the assignments and ranges of its
//     function: with anything in a strings function, with any string literal but "" (is
//     there text at all?) or a pkg/mvp string constant in an ==, != or case,
//
// in a non-test Go file of the module outside test/e2e (its own module), testdata, this
// package and the wording files: files named *wording*.go or say.go, which make sentences.
// textAsDataAllowed lists the legitimate readings of text that comes from outside (an HTTP
// body, a kubeconfig, a log), each with its reason; a key is "file: operand" as reported.
var textAsDataAllowed = map[string]string{
	"cmd/mvpctl/internal/cli/typos.go: \"unknown flag: --\"":                      "cobra's flag-parsing error is a sentence; the hint reads the flag's name from it",
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
	"pkg/mvp/aggregated_checks.go: a.Available.Reason":                            "an APIService's Available condition reason is read from the cluster: the aggregator's one-word token",
	"pkg/mvp/aggregated_checks.go: reason":                                        "an APIService's Available condition reason is read from the cluster: the aggregator's one-word token",
	"pkg/probe/classify.go: mvp.AggregatorUnavailableMessage":                     "the probe classifies the aggregator's 503 body by the text pkg/mvp holds",
	"pkg/probe/classify.go: mvp.NotFoundText":                                     "the probe classifies an apiserver's 404 body by the text pkg/mvp holds",
	"pkg/probe/classify.go: st.Message":                                           "the probe classifies an apiserver's Status body by its message, the text pkg/mvp holds",
	"pkg/profilerecord/record.go: mvp.StageGA":                                    "a feature's stage is the stage label of kubernetes_feature_enabled, read from /metrics: empty for GA",
	"pkg/snapshot/evidence.go: line":                                              "a snapshot file keeps evidence as sentences only: their kinds are derived once, when the file is read",
	"pkg/simulate/removed.go: mvp.ServeRemovedAPIsEnv":                            "the name of an environment variable, read from a static pod manifest",
	"pkg/simulate/removed.go: mvp.RemovedDiscoveryGate+\"=\"":                     "the stated --feature-gates value, read from an installer's configuration, names gates as Name=bool",
	"pkg/watch/metrics.go: \"connection refused\"":                                "a scrape's failure is a Go error whose kind is only in its text",
	"pkg/watch/metrics.go: \"deadline exceeded\"":                                 "a scrape's failure is a Go error whose kind is only in its text",
	"pkg/watch/metrics.go: \"no such host\"":                                      "a scrape's failure is a Go error whose kind is only in its text",
}

// textCompareFuncs are the strings functions that compare or match text.
var textCompareFuncs = map[string]bool{
	"HasPrefix": true, "HasSuffix": true, "Contains": true, "EqualFold": true,
	"Cut": true, "CutPrefix": true, "CutSuffix": true, "TrimPrefix": true, "TrimSuffix": true,
}

// textAsDataHits lists "file:line: operand" for every comparison of message text in the Go
// files under root (see textAsDataAllowed for what counts); mvpConsts are the pkg/mvp string
// constants.
func textAsDataHits(t *testing.T, root string) []string {
	mvpConsts := stringConsts(t, filepath.Join(root, "pkg", "mvp"))
	moduleConsts = map[string]map[string]bool{}
	for _, top := range []string{"pkg", "internal"} {
		dirs, _ := filepath.Glob(filepath.Join(root, top, "*"))
		for _, d := range dirs {
			if base := filepath.Base(d); base != "mvp" {
				moduleConsts[base] = stringConsts(t, d)
			}
		}
	}
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

// textFields are the fields that hold sentences made for people: a comparison on a value read
// from one reads a sentence back, whatever it compares it with.
var textFields = map[string]bool{"Evidence": true, "Notes": true, "Note": true, "Message": true, "Reason": true}

// textComparisons are the message-text operands of f's comparisons: an operand that is
// message text (isMessageText), and, in a comparison on a value read from a text field
// (textFields, followed through assignments and ranges within a function), that value.
func textComparisons(f *ast.File, mvpConsts map[string]bool) []ast.Expr {
	var ops []ast.Expr
	for _, decl := range f.Decls {
		tainted := map[string]bool{}
		if fd, ok := decl.(*ast.FuncDecl); ok && fd.Body != nil {
			tainted = readFromTextFields(fd.Body)
		}
		ops = append(ops, comparisonsIn(decl, mvpConsts, tainted)...)
	}
	return ops
}

// comparisonsIn is textComparisons for one declaration, with the names of its variables that
// hold text read from a text field.
func comparisonsIn(decl ast.Node, mvpConsts, tainted map[string]bool) []ast.Expr {
	var ops []ast.Expr
	check := func(es ...ast.Expr) {
		for _, e := range es {
			if isMessageText(e, mvpConsts) {
				ops = append(ops, e)
			}
		}
	}
	fromText := func(e ast.Expr) bool { return fromTextField(e, tainted) }
	ast.Inspect(decl, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && textCompareFuncs[sel.Sel.Name] {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "strings" {
					check(n.Args...)
					for _, a := range n.Args {
						if isModuleConst(a) {
							ops = append(ops, a)
						}
					}
					if len(n.Args) > 0 && fromText(n.Args[0]) {
						ops = append(ops, n.Args[0])
					}
				}
			}
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				check(n.X, n.Y)
				for _, pair := range [][2]ast.Expr{{n.X, n.Y}, {n.Y, n.X}} {
					if fromText(pair[0]) && isWording(pair[1], mvpConsts) {
						ops = append(ops, pair[0])
					}
				}
			}
		case *ast.SwitchStmt:
			if n.Tag == nil {
				return true
			}
			for _, s := range n.Body.List {
				check(s.(*ast.CaseClause).List...)
				for _, e := range s.(*ast.CaseClause).List {
					if fromText(n.Tag) && isWording(e, mvpConsts) {
						ops = append(ops, n.Tag)
					}
				}
			}
		}
		return true
	})
	return ops
}

// isWording: e is a string literal other than "" (which asks whether there is text at all), or
// a pkg/mvp string constant.
func isWording(e ast.Expr, mvpConsts map[string]bool) bool {
	if l, ok := e.(*ast.BasicLit); ok {
		return l.Kind == token.STRING && l.Value != `""` && l.Value != "``"
	}
	return isMessageText(e, mvpConsts)
}

// readFromTextFields are the names of the variables of body that hold a value read from a text
// field: assigned from one, ranged over one, or cut from one, transitively.
func readFromTextFields(body *ast.BlockStmt) map[string]bool {
	tainted := map[string]bool{}
	for changed := true; changed; {
		changed = false
		mark := func(es ...ast.Expr) {
			for _, e := range es {
				if id, ok := e.(*ast.Ident); ok && id.Name != "_" && !tainted[id.Name] {
					tainted[id.Name], changed = true, true
				}
			}
		}
		ast.Inspect(body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, r := range n.Rhs {
					if fromTextField(r, tainted) {
						mark(n.Lhs...)
					}
				}
			case *ast.RangeStmt:
				if fromTextField(n.X, tainted) && n.Value != nil {
					mark(n.Value)
				}
			case *ast.ValueSpec:
				for _, v := range n.Values {
					if fromTextField(v, tainted) {
						mark(identsOf(n.Names)...)
					}
				}
			}
			return true
		})
	}
	return tainted
}

func identsOf(names []*ast.Ident) []ast.Expr {
	out := make([]ast.Expr, len(names))
	for i, n := range names {
		out[i] = n
	}
	return out
}

// fromTextField: e reads a text field (x.Evidence, x.Evidence[i], a variable holding one, or
// what a strings function or append makes of one).
func fromTextField(e ast.Expr, tainted map[string]bool) bool {
	switch e := e.(type) {
	case *ast.SelectorExpr:
		return textFields[e.Sel.Name]
	case *ast.Ident:
		return tainted[e.Name]
	case *ast.IndexExpr:
		return fromTextField(e.X, tainted)
	case *ast.SliceExpr:
		return fromTextField(e.X, tainted)
	case *ast.ParenExpr:
		return fromTextField(e.X, tainted)
	case *ast.CallExpr:
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok {
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "strings" && len(e.Args) > 0 {
				return fromTextField(e.Args[0], tainted)
			}
		}
		if id, ok := e.Fun.(*ast.Ident); ok && id.Name == "append" && len(e.Args) > 0 {
			for _, a := range e.Args {
				if fromTextField(a, tainted) {
					return true
				}
			}
		}
	}
	return false
}

// moduleConsts are the string constants of the module's packages but pkg/mvp, by package
// name: one used in a strings function is the start, end or part of a text the module made
// (a source's "manifest " prefix), read back.
var moduleConsts map[string]map[string]bool

// isModuleConst: e is pkg.Name, a string constant of a module package but pkg/mvp.
func isModuleConst(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && moduleConsts[pkg.Name][sel.Sel.Name]
}

// isMessageText: e is a string literal of more than one word, or a pkg/mvp string constant
// (mvp.Name, whatever its words), or a concatenation with one of these.
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
	case *ast.BinaryExpr:
		return e.Op == token.ADD && (isMessageText(e.X, mvpConsts) || isMessageText(e.Y, mvpConsts))
	}
	return false
}

func operandText(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Value
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return operandText(e.X) + "." + e.Sel.Name
	case *ast.ParenExpr:
		return operandText(e.X)
	case *ast.IndexExpr:
		return operandText(e.X) + "[" + operandText(e.Index) + "]"
	case *ast.BinaryExpr:
		return operandText(e.X) + e.Op.String() + operandText(e.Y)
	}
	return "?"
}

// stringConsts are the names of the untyped (or string) constants declared in dir's non-test
// files whose value is made of string literals: text, whatever its words. A constant of a
// named type (an outcome, a kind) is a typed value, not text.
func stringConsts(t *testing.T, dir string) map[string]bool {
	out := map[string]bool{}
	for _, pf := range productionFiles(t, token.NewFileSet(), dir) {
		for _, decl := range pf.file.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); vs.Type != nil && (!ok || id.Name != "string") {
					continue
				}
				for i, name := range vs.Names {
					if i < len(vs.Values) && isStringValue(vs.Values[i]) {
						out[name.Name] = true
					}
				}
			}
		}
	}
	return out
}

// isStringValue: e is a string literal, string(...) of a constant, or a concatenation of these.
func isStringValue(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Kind == token.STRING
	case *ast.CallExpr:
		id, ok := e.Fun.(*ast.Ident)
		return ok && id.Name == "string"
	case *ast.BinaryExpr:
		return e.Op == token.ADD && (isStringValue(e.X) || isStringValue(e.Y))
	case *ast.ParenExpr:
		return isStringValue(e.X)
	}
	return false
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
// function, by ==, by switch case, by a pkg/mvp constant of any number of words, by a strings
// function with another package's string constant: a prefix test) and of a
// value read from a text field (directly, through a variable, a range or a cut), and leaves
// alone other single words, a check for no text, a wording file, a test file and comments.
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
	write("a/b.go", `package a

import ("strings"; "x/mvp")

type pp struct{ Evidence []string; Reason, Message string }

func g(p pp, word string) bool {
	for _, e := range p.Evidence {
		if strings.Contains(e, word) || word == "x" {
			return true
		}
	}
	ev := p.Evidence
	for _, line := range ev {
		if _, what, ok := strings.Cut(line, ": "); ok && what == "x" {
			return true
		}
	}
	if p.Message == "" || p.Reason != "Gone" || len(p.Evidence) == 0 {
		return false
	}
	switch p.Reason {
	case "A":
	}
	return strings.HasPrefix(p.Message, mvp.Word+": ")
}
`)
	write("pkg/snap/s.go", "package snap\n\nconst Prefix = \"manifest \"\n\ntype Kind string\n\nconst Typed Kind = \"manifest\"\n")
	write("c/c.go", "package c\n\nimport (\"strings\"; \"x/snap\")\n\nfunc h(src string) bool {\n\treturn strings.HasPrefix(src, snap.Prefix) || strings.HasPrefix(src, string(snap.Typed))\n}\n")
	write("a/wording.go", "package a\n\nimport \"strings\"\n\nvar w = strings.HasPrefix(\"x\", \"a sentence\")\n")
	write("a/say.go", "package a\n\nvar s = \"x\" == \"a sentence\"\n")
	write("a/a_test.go", "package a\n\nvar s = \"x\" == \"a sentence\"\n")
	got := textAsDataHits(t, dir)
	want := []string{
		`a/a.go:7: "stated --runtime-config"`,
		`a/a.go:7: "as observed"`,
		`a/a.go:11: "not a word"`,
		`a/a.go:13: mvp.Said`,
		`a/a.go:13: mvp.Word`,
		`a/b.go:9: e`,
		`a/b.go:15: line`,
		`a/b.go:15: what`,
		`a/b.go:19: p.Reason`,
		`a/b.go:22: p.Reason`,
		`a/b.go:25: mvp.Word+": "`,
		`a/b.go:25: p.Message`,
		`c/c.go:6: snap.Prefix`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("hits:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
