package profilerecord

import (
	"fmt"
	"go/ast"
	"go/token"
	"path"
	"sort"
	"strings"
)

// typeRef is a named type of a k8s.io/kubernetes package, and the function that made the
// value (its constructor: where the store's NewFunc and strategy are set), when known.
type typeRef struct {
	pkg, name string
	ctorFile  *goFile
	ctor      *ast.FuncDecl
}

const (
	genericStore    = "k8s.io/apiserver/pkg/registry/generic/registry.Store"
	standardStorage = "k8s.io/apiserver/pkg/registry/rest.StandardStorage"
)

// storeVerbs are what a type embedding genericregistry.Store serves: it implements every
// interface below.
var storeVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// methodVerbs maps a k8s.io/apiserver rest interface's method to the verbs it gives
// (pkg/endpoints/installer.go: Updater gives update and patch).
var methodVerbs = map[string][]string{
	"Create": {"create"}, "Get": {"get"}, "List": {"list"}, "Update": {"update", "patch"},
	"Delete": {"delete"}, "DeleteCollection": {"deletecollection"}, "Watch": {"watch"},
}

// resolveValue is the type of the value e, the i-th of what it yields, in function fd.
func (x *extractor) resolveValue(g *goFile, fd *ast.FuncDecl, e ast.Expr, i int) (typeRef, error) {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return x.resolveValue(g, fd, e.X, i)
	case *ast.CallExpr:
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok {
			if pkg, ok := selectorPkg(sel); ok && g.imports[pkg] != "" {
				return x.funcResult(g.imports[pkg], sel.Sel.Name, i)
			}
		}
		if id, ok := e.Fun.(*ast.Ident); ok {
			return x.paramFuncResult(g, fd, id.Name, i)
		}
	case *ast.UnaryExpr:
		return x.resolveValue(g, fd, e.X, i)
	case *ast.CompositeLit:
		return x.typeExpr(g, e.Type)
	case *ast.Ident:
		return x.resolveIdent(g, fd, e.Name, e.Pos())
	case *ast.SelectorExpr:
		if id, ok := e.X.(*ast.Ident); ok && g.imports[id.Name] == "" {
			t, err := x.resolveIdent(g, fd, id.Name, id.Pos())
			if err != nil {
				return typeRef{}, err
			}
			return x.fieldType(t, e.Sel.Name)
		}
	}
	return typeRef{}, fmt.Errorf("cannot tell the type of %T at %s", e, g.fset.Position(e.Pos()))
}

// resolveIdent finds the last assignment of a local variable in fd before its use at pos, and
// the type of its value.
func (x *extractor) resolveIdent(g *goFile, fd *ast.FuncDecl, name string, pos token.Pos) (typeRef, error) {
	var found *typeRef
	var err error
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if err != nil || n == nil || n.Pos() >= pos {
			return false
		}
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			return true
		}
		for i, l := range as.Lhs {
			id, ok := l.(*ast.Ident)
			if !ok || id.Name != name {
				continue
			}
			var t typeRef
			if len(as.Rhs) == len(as.Lhs) {
				t, err = x.resolveValue(g, fd, as.Rhs[i], 0)
			} else if len(as.Rhs) == 1 {
				t, err = x.resolveValue(g, fd, as.Rhs[0], i)
			}
			if err == nil && t.name != "" {
				found = &t
			}
			return true
		}
		return true
	})
	if err != nil {
		return typeRef{}, err
	}
	if found == nil {
		return typeRef{}, fmt.Errorf("no assignment of %s in %s", name, fd.Name.Name)
	}
	return *found, nil
}

// funcResult is the type of the i-th result of function name of package importPath.
func (x *extractor) funcResult(importPath, name string, i int) (typeRef, error) {
	rel, ok := strings.CutPrefix(importPath, kubernetesModule+"/")
	if !ok {
		return typeRef{}, fmt.Errorf("%s.%s is not of %s", importPath, name, kubernetesModule)
	}
	files, err := x.parseDir(x.kube, rel)
	if err != nil {
		return typeRef{}, err
	}
	for _, g := range files {
		for _, decl := range g.ast.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Name.Name != name || fd.Type.Results == nil {
				continue
			}
			var results []ast.Expr
			for _, f := range fd.Type.Results.List {
				for range max(1, len(f.Names)) {
					results = append(results, f.Type)
				}
			}
			if i >= len(results) {
				return typeRef{}, fmt.Errorf("%s.%s has %d results", importPath, name, len(results))
			}
			t, err := x.typeExpr(g, results[i])
			t.ctorFile, t.ctor = g, fd
			return t, err
		}
	}
	return typeRef{}, fmt.Errorf("no func %s in %s/%s", name, x.kube.ID(), rel)
}

// typeExpr is the named type an expression of file g names (through a pointer).
func (x *extractor) typeExpr(g *goFile, e ast.Expr) (typeRef, error) {
	switch e := e.(type) {
	case *ast.StarExpr:
		return x.typeExpr(g, e.X)
	case *ast.Ident:
		return typeRef{pkg: path.Dir(g.rel), name: e.Name}, nil
	case *ast.SelectorExpr:
		if pkg, ok := selectorPkg(e); ok {
			p := g.imports[pkg]
			if rel, ok := strings.CutPrefix(p, kubernetesModule+"/"); ok {
				return typeRef{pkg: rel, name: e.Sel.Name}, nil
			}
			return typeRef{pkg: p, name: e.Sel.Name}, nil
		}
	}
	return typeRef{}, fmt.Errorf("cannot name the type %T at %s", e, g.fset.Position(e.Pos()))
}

// typeSpec finds a named struct type of a k8s.io/kubernetes package.
func (x *extractor) typeSpec(t typeRef) (*goFile, *ast.TypeSpec, error) {
	files, err := x.parseDir(x.kube, t.pkg)
	if err != nil {
		return nil, nil, err
	}
	for _, g := range files {
		for _, decl := range g.ast.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok {
				for _, s := range gd.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.Name == t.name {
						return g, ts, nil
					}
				}
			}
		}
	}
	return nil, nil, fmt.Errorf("no type %s in %s/%s", t.name, x.kube.ID(), t.pkg)
}

// fieldType is the type of field name of struct t.
func (x *extractor) fieldType(t typeRef, name string) (typeRef, error) {
	g, ts, err := x.typeSpec(t)
	if err != nil {
		return typeRef{}, err
	}
	st, ok := ts.Type.(*ast.StructType)
	if !ok {
		return typeRef{}, fmt.Errorf("%s.%s is not a struct", t.pkg, t.name)
	}
	for _, f := range st.Fields.List {
		for _, n := range f.Names {
			if n.Name == name {
				out, err := x.typeExpr(g, f.Type)
				out.ctorFile, out.ctor = t.ctorFile, t.ctor
				return out, err
			}
		}
	}
	return typeRef{}, fmt.Errorf("%s.%s has no field %s", t.pkg, t.name, name)
}

// methods are the methods declared on t (or *t) in its package.
func (x *extractor) methods(t typeRef) (map[string]*ast.FuncDecl, map[string]*goFile, error) {
	files, err := x.parseDir(x.kube, t.pkg)
	if err != nil {
		return nil, nil, err
	}
	decls, in := map[string]*ast.FuncDecl{}, map[string]*goFile{}
	for _, g := range files {
		for _, decl := range g.ast.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 {
				continue
			}
			rt := fd.Recv.List[0].Type
			if s, ok := rt.(*ast.StarExpr); ok {
				rt = s.X
			}
			if id, ok := rt.(*ast.Ident); ok && id.Name == t.name {
				decls[fd.Name.Name], in[fd.Name.Name] = fd, g
			}
		}
	}
	return decls, in, nil
}

func sortedVerbs(set map[string]bool) []string {
	out := []string{}
	for v := range set {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// paramFuncResult is the i-th result type of calling parameter name of fd, whose type is a
// func type declared in the same package (type hpaStorageGetter func() (*REST, …)).
func (x *extractor) paramFuncResult(g *goFile, fd *ast.FuncDecl, name string, i int) (typeRef, error) {
	for _, p := range fd.Type.Params.List {
		for _, n := range p.Names {
			if n.Name != name {
				continue
			}
			id, ok := p.Type.(*ast.Ident)
			if !ok {
				break
			}
			tg, ts, err := x.typeSpec(typeRef{pkg: path.Dir(g.rel), name: id.Name})
			if err != nil {
				return typeRef{}, err
			}
			ft, ok := ts.Type.(*ast.FuncType)
			if !ok || ft.Results == nil || i >= len(ft.Results.List) {
				break
			}
			return x.typeExpr(tg, ft.Results.List[i].Type)
		}
	}
	return typeRef{}, fmt.Errorf("cannot tell what %s() returns in %s", name, fd.Name.Name)
}
