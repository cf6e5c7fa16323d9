// Command lifecycle writes pkg/lifecycle/lifecycle.json: the lifecycle of every built-in API
// type k8s.io/api states one for, derived from the generated lifecycle functions
// (APILifecycleIntroduced, APILifecycleDeprecated, APILifecycleReplacement,
// APILifecycleRemoved in each group/version's zz_generated.prerelease-lifecycle.go) of every
// module version it is given, read as Go source (go/ast) from the module cache. Nothing is
// downloaded: a module missing from the cache is named with the command that fetches it.
//
// A type is keyed by group (register.go's GroupName), version (the package directory) and
// kind (the method's receiver); the newest module that holds it gives its row, so a type
// that newer modules dropped keeps the row of the last one that held it. The list of module
// versions is the output's own "modules" (or -modules), so `make lifecycle` re-derives the
// committed file from the same modules; TestCommittedTableIsDerived compares.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mvpctl/mvpctl/internal/gosrc"
	"github.com/mvpctl/mvpctl/pkg/lifecycle"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// module is the module whose lifecycle functions are read.
const module = "k8s.io/api"

// lifecycleFile is the generated file of each group/version package.
const lifecycleFile = "zz_generated.prerelease-lifecycle.go"

func main() {
	out := flag.String("out", "pkg/lifecycle/lifecycle.json", "file to write")
	modules := flag.String("modules", "", "comma-separated k8s.io/api versions (v0.37.2,...), oldest first; default: the \"modules\" of -out")
	modcache := flag.String("modcache", "", "the Go module cache (default: go env GOMODCACHE)")
	flag.Parse()
	if err := run(*out, *modules, *modcache); err != nil {
		fmt.Fprintln(os.Stderr, "lifecycle:", err)
		os.Exit(1)
	}
}

func run(out, modules, modcache string) error {
	var versions []string
	if modules != "" {
		versions = strings.Split(modules, ",")
	} else {
		data, err := os.ReadFile(out)
		if err != nil {
			return fmt.Errorf("%w (give -modules on the first run)", err)
		}
		var t lifecycle.Table
		if err := json.Unmarshal(data, &t); err != nil {
			return fmt.Errorf("%s: %w", out, err)
		}
		for _, m := range t.Modules {
			versions = append(versions, strings.TrimPrefix(m, module+"@"))
		}
	}
	if modcache == "" {
		var err error
		if modcache, err = goEnv("GOMODCACHE"); err != nil {
			return err
		}
	}
	dirs := map[string]string{}
	for _, v := range versions {
		dir := ModuleDir(modcache, v)
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
			return fmt.Errorf("%s@%s is not in the module cache %s: run `go mod download %s@%s` (needs the module proxy) and again", module, v, modcache, module, v)
		}
		dirs[v] = dir
	}
	t, err := Derive(versions, dirs)
	if err != nil {
		return err
	}
	if err := MapResources(&t); err != nil {
		return err
	}
	data, err := Encode(t)
	if err != nil {
		return err
	}
	return os.WriteFile(out, data, 0o644)
}

// ModuleDir is where the module cache holds k8s.io/api@version.
func ModuleDir(modcache, version string) string {
	return filepath.Join(modcache, "k8s.io", "api@"+version)
}

func goEnv(name string) (string, error) {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %w", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Derive reads every module version (oldest first; dirs holds each one's directory) and
// returns the table: for each group/version/kind, the row of the newest module that holds it.
func Derive(versions []string, dirs map[string]string) (lifecycle.Table, error) {
	t := lifecycle.Table{Modules: []string{}, Rows: []lifecycle.Row{}}
	rows := map[lifecycle.GVK]lifecycle.Row{}
	for _, v := range versions {
		t.Modules = append(t.Modules, module+"@"+v)
		got, err := deriveModule(dirs[v], module+"@"+v)
		if err != nil {
			return t, err
		}
		for _, r := range got {
			rows[r.GVK] = r
		}
	}
	for _, r := range rows {
		t.Rows = append(t.Rows, r)
	}
	lifecycle.Sort(t.Rows)
	return t, nil
}

// MapResources takes each row's resource from the discovery of the recorded profiles
// (pkg/profile) when one of their binaries serves the kind (the newest such profile is cited),
// and leaves the rule's guess otherwise: core v1 Endpoints is "endpoints", not the rule's
// "endpointses".
func MapResources(t *lifecycle.Table) error {
	ps, err := profile.All()
	if err != nil {
		return err
	}
	served := map[lifecycle.GVK]string{}
	from := map[lifecycle.GVK]string{}
	for _, p := range ps { // oldest first: the newest profile is cited
		for _, set := range [][]snapshot.Resource{p.Resources, p.Full, p.FullServeRemoved} {
			for _, r := range set {
				if r.Kind != "" && !strings.Contains(r.Resource, "/") {
					k := lifecycle.GVK{Group: r.Group, Version: r.Version, Kind: r.Kind}
					served[k], from[k] = r.Resource, "profile "+p.Version.String()
				}
			}
		}
	}
	for i := range t.Rows {
		r := &t.Rows[i]
		if res, ok := served[r.GVK]; ok {
			r.Resource, r.ResourceFrom = res, from[r.GVK]
		} else if r.Resource != "" {
			r.ResourceFrom = lifecycle.ResourceByRule
		}
	}
	return nil
}

// Encode writes the table as JSON, one row a line.
func Encode(t lifecycle.Table) ([]byte, error) {
	var b bytes.Buffer
	mods, err := json.Marshal(t.Modules)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(&b, "{\"modules\": %s,\n\"rows\": [\n", mods)
	for i, r := range t.Rows {
		line, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		b.Write(line)
		if i < len(t.Rows)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]}\n")
	return b.Bytes(), nil
}

// deriveModule reads every lifecycle file under the module directory dir.
func deriveModule(dir, source string) ([]lifecycle.Row, error) {
	var out []lifecycle.Row
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != lifecycleFile {
			return err
		}
		rows, err := ParsePackage(filepath.Dir(p), source)
		if err != nil {
			rel, _ := filepath.Rel(dir, p)
			return fmt.Errorf("%s %s: %w", source, rel, err)
		}
		out = append(out, rows...)
		return nil
	})
	return out, err
}

// ParsePackage reads one group/version package: its group from register.go's GroupName, its
// version from the directory's name, and a row for each type with lifecycle functions.
func ParsePackage(dir, source string) ([]lifecycle.Row, error) {
	group, err := groupName(filepath.Join(dir, "register.go"))
	if err != nil {
		return nil, err
	}
	src, err := os.ReadFile(filepath.Join(dir, lifecycleFile))
	if err != nil {
		return nil, err
	}
	return ParseLifecycle(src, group, filepath.Base(dir), source)
}

// groupName is the value of the package's GroupName constant.
func groupName(path string) (string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return "", err
	}
	if g, _, ok := gosrc.StringConst(f, "GroupName"); ok {
		return g, nil
	}
	return "", fmt.Errorf("%s: no const GroupName", path)
}

// ParseLifecycle reads the lifecycle functions of one generated file: one row per receiver type.
func ParseLifecycle(src []byte, group, version, source string) ([]lifecycle.Row, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, lifecycleFile, src, 0)
	if err != nil {
		return nil, err
	}
	rows := map[string]*lifecycle.Row{}
	var order []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || !strings.HasPrefix(fn.Name.Name, "APILifecycle") {
			continue
		}
		kind, err := receiver(fn)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fset.Position(fn.Pos()), err)
		}
		r := rows[kind]
		if r == nil {
			r = &lifecycle.Row{GVK: lifecycle.GVK{Group: group, Version: version, Kind: kind}, Source: source}
			rows[kind] = r
			order = append(order, kind)
		}
		res, err := returned(fn)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", fset.Position(fn.Pos()), fn.Name.Name, err)
		}
		switch fn.Name.Name {
		case "APILifecycleIntroduced":
			r.Introduced, err = release(res)
		case "APILifecycleDeprecated":
			r.Deprecated, err = release(res)
		case "APILifecycleRemoved":
			r.Removed, err = release(res)
		case "APILifecycleReplacement":
			r.Replacement, err = gvk(res)
		default:
			err = fmt.Errorf("unknown lifecycle function")
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", fset.Position(fn.Pos()), fn.Name.Name, err)
		}
	}
	out := make([]lifecycle.Row, 0, len(order))
	for _, k := range order {
		r := rows[k]
		// A List kind is the list of its item kind's resource, not a resource of its own.
		if _, item := rows[strings.TrimSuffix(k, "List")]; !(strings.HasSuffix(k, "List") && item) {
			r.Resource = lifecycle.GuessResource(k)
		}
		out = append(out, *r)
	}
	return out, nil
}

func receiver(fn *ast.FuncDecl) (string, error) {
	if len(fn.Recv.List) != 1 {
		return "", fmt.Errorf("want one receiver")
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	id, ok := t.(*ast.Ident)
	if !ok {
		return "", fmt.Errorf("receiver is not a named type")
	}
	return id.Name, nil
}

// returned is the expressions of the function's one return statement.
func returned(fn *ast.FuncDecl) ([]ast.Expr, error) {
	if fn.Body == nil || len(fn.Body.List) != 1 {
		return nil, fmt.Errorf("want a body of one return statement")
	}
	ret, ok := fn.Body.List[0].(*ast.ReturnStmt)
	if !ok {
		return nil, fmt.Errorf("want a body of one return statement")
	}
	return ret.Results, nil
}

func release(res []ast.Expr) (lifecycle.Release, error) {
	if len(res) != 2 {
		return lifecycle.Release{}, fmt.Errorf("want return MAJOR, MINOR")
	}
	var n [2]int
	for i, e := range res {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.INT {
			return lifecycle.Release{}, fmt.Errorf("want integer literals")
		}
		v, err := strconv.Atoi(lit.Value)
		if err != nil {
			return lifecycle.Release{}, err
		}
		n[i] = v
	}
	return lifecycle.Release{Major: n[0], Minor: n[1]}, nil
}

func gvk(res []ast.Expr) (*lifecycle.GVK, error) {
	if len(res) != 1 {
		return nil, fmt.Errorf("want one schema.GroupVersionKind")
	}
	lit, ok := res[0].(*ast.CompositeLit)
	if !ok {
		return nil, fmt.Errorf("want a schema.GroupVersionKind literal")
	}
	var g lifecycle.GVK
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			return nil, fmt.Errorf("want Group:, Version:, Kind: fields")
		}
		key, _ := kv.Key.(*ast.Ident)
		v, err := stringLit(kv.Value)
		if err != nil || key == nil {
			return nil, fmt.Errorf("want Group:, Version:, Kind: string fields")
		}
		switch key.Name {
		case "Group":
			g.Group = v
		case "Version":
			g.Version = v
		case "Kind":
			g.Kind = v
		default:
			return nil, fmt.Errorf("unknown field %s", key.Name)
		}
	}
	return &g, nil
}

func stringLit(e ast.Expr) (string, error) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", fmt.Errorf("want a string literal")
	}
	return strconv.Unquote(lit.Value)
}
