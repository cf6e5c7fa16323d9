package profilerecord

import (
	"fmt"
	"go/ast"
	"path"
	"strings"
)

// storageInfo is what a storage type says of its resource.
type storageInfo struct {
	kind                          string
	namespaced, scopeKnown, store bool
	// wrapper: it embeds rest.StandardStorage (every verb; kind and store given to it)
	wrapper                       bool
	verbs                         map[string]bool
	typeCite, kindCite, scopeCite string
}

// typeInfo reads a storage type: its verbs (the rest interfaces its methods, or an embedded
// genericregistry.Store, implement), its kind (its New method, or the store's NewFunc) and
// scope (its NamespaceScoped method, or the store's CreateStrategy's).
// A type embedding rest.StandardStorage wraps a store it is given: its kind is the given
// store's (wrappedKind), so complete is false for it.
func (x *extractor) typeInfo(t typeRef, complete bool) (storageInfo, error) {
	g, ts, err := x.typeSpec(t)
	if err != nil {
		return storageInfo{}, err
	}
	info := storageInfo{typeCite: g.cite(x, ts), verbs: map[string]bool{}}
	if err := x.collect(t, &info, 0); err != nil {
		return storageInfo{}, err
	}
	if info.store {
		for _, v := range storeVerbs {
			info.verbs[v] = true
		}
		if info.kind == "" {
			x.newFunc(t, &info)
		}
		if !info.scopeKnown {
			if err := x.strategyScope(t, &info); err != nil {
				return storageInfo{}, err
			}
		}
	}
	if (info.kind == "" && (complete || !info.wrapper)) || !info.scopeKnown || len(info.verbs) == 0 {
		return storageInfo{}, fmt.Errorf("%s.%s: kind %q, scope known %v, verbs %v", t.pkg, t.name, info.kind, info.scopeKnown, sortedVerbs(info.verbs))
	}
	return info, nil
}

// collect adds what t's methods say, then what its embedded types' do.
func (x *extractor) collect(t typeRef, info *storageInfo, depth int) error {
	if depth > 4 || strings.Contains(strings.SplitN(t.pkg, "/", 2)[0], ".") {
		return nil // not a k8s.io/kubernetes type
	}
	decls, files, err := x.methods(t)
	if err != nil {
		return err
	}
	for name, fd := range decls {
		for _, v := range methodVerbs[name] {
			info.verbs[v] = true
		}
		switch name {
		case "New":
			if k, ok := returnedKind(fd.Body); ok && info.kind == "" {
				info.kind, info.kindCite = k, files[name].cite(x, fd)
			}
		case "NamespaceScoped":
			if b, ok := returnedBool(fd.Body); ok && !info.scopeKnown {
				info.namespaced, info.scopeKnown, info.scopeCite = b, true, files[name].cite(x, fd)
			}
		}
		if err := x.delegated(t, name, fd, info, depth); err != nil {
			return err
		}
	}
	g, ts, err := x.typeSpec(t)
	if err != nil {
		return err
	}
	st, ok := ts.Type.(*ast.StructType)
	if !ok {
		return nil
	}
	for _, f := range st.Fields.List {
		if len(f.Names) > 0 {
			continue
		}
		et, err := x.typeExpr(g, f.Type)
		if err != nil {
			return err
		}
		if et.pkg+"."+et.name == genericStore {
			info.store = true
			continue
		}
		if et.pkg+"."+et.name == standardStorage {
			info.wrapper = true
			for _, v := range storeVerbs {
				info.verbs[v] = true
			}
			continue
		}
		et.ctorFile, et.ctor = t.ctorFile, t.ctor
		if err := x.collect(et, info, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// returnedKind is Kind of a body's `return &pkg.Kind{}`.
func returnedKind(body *ast.BlockStmt) (string, bool) {
	if body == nil {
		return "", false
	}
	for _, s := range body.List {
		ret, ok := s.(*ast.ReturnStmt)
		if !ok || len(ret.Results) != 1 {
			continue
		}
		if u, ok := ret.Results[0].(*ast.UnaryExpr); ok {
			if cl, ok := u.X.(*ast.CompositeLit); ok {
				if sel, ok := cl.Type.(*ast.SelectorExpr); ok {
					return sel.Sel.Name, true
				}
			}
		}
	}
	return "", false
}

func returnedBool(body *ast.BlockStmt) (bool, bool) {
	if body == nil || len(body.List) != 1 {
		return false, false
	}
	if ret, ok := body.List[0].(*ast.ReturnStmt); ok && len(ret.Results) == 1 {
		switch identName(ret.Results[0]) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	}
	return false, false
}

// keyValue finds the first Key: value of a composite literal under n.
func keyValue(n ast.Node, key string) ast.Expr {
	var out ast.Expr
	ast.Inspect(n, func(n ast.Node) bool {
		if kv, ok := n.(*ast.KeyValueExpr); ok && out == nil && identName(kv.Key) == key {
			out = kv.Value
		}
		return out == nil
	})
	return out
}

// newFunc reads the kind from the store's NewFunc in the constructor.
// newFunc reads the kind from the store's NewFunc in the constructor, or else the first of
// the storage package (whose constructor calls the one that sets it).
func (x *extractor) newFunc(t typeRef, info *storageInfo) {
	for _, c := range x.ctors(t) {
		if fl, ok := keyValue(c.fd.Body, "NewFunc").(*ast.FuncLit); ok {
			if k, ok := returnedKind(fl.Body); ok {
				info.kind, info.kindCite = k, c.g.cite(x, fl)
				return
			}
		}
	}
}

type ctorDecl struct {
	g  *goFile
	fd *ast.FuncDecl
}

// ctors are t's constructor, then every function of t's package in file order.
func (x *extractor) ctors(t typeRef) []ctorDecl {
	var out []ctorDecl
	if t.ctor != nil {
		out = append(out, ctorDecl{t.ctorFile, t.ctor})
	}
	files, _ := x.parseDir(x.kube, t.pkg)
	for _, g := range files {
		for _, decl := range g.ast.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Body != nil {
				out = append(out, ctorDecl{g, fd})
			}
		}
	}
	return out
}

// strategyScope reads the scope from the NamespaceScoped method of the package the store's
// CreateStrategy comes from (pkg.Strategy, or a variable set from pkg.NewStrategy()), or of
// the storage package's parent when the constructor does not say.
func (x *extractor) strategyScope(t typeRef, info *storageInfo) error {
	pkg := path.Dir(t.pkg)
	for _, c := range x.ctors(t) {
		if p := strategyPackage(c.g, c.fd, keyValue(c.fd.Body, "CreateStrategy")); p != "" {
			pkg = p
			break
		}
	}
	files, err := x.parseDir(x.kube, pkg)
	if err != nil {
		return err
	}
	for _, g := range files {
		for _, decl := range g.ast.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || fd.Name.Name != "NamespaceScoped" || len(fd.Recv.List) != 1 {
				continue
			}
			if recv := strings.ToLower(fmt.Sprint(fd.Recv.List[0].Type)); strings.Contains(recv, "statusstrategy") {
				continue
			}
			if b, ok := returnedBool(fd.Body); ok {
				info.namespaced, info.scopeKnown, info.scopeCite = b, true, g.cite(x, fd)
				return nil
			}
		}
	}
	return nil
}

// strategyPackage is the k8s.io/kubernetes package a CreateStrategy value comes from.
func strategyPackage(g *goFile, fd *ast.FuncDecl, e ast.Expr) string {
	fromSelector := func(e ast.Expr) string {
		if c, ok := e.(*ast.CallExpr); ok {
			e = c.Fun
		}
		sel, _ := e.(*ast.SelectorExpr)
		if pkg, ok := selectorPkg(sel); ok {
			return strings.TrimPrefix(g.imports[pkg], kubernetesModule+"/")
		}
		return ""
	}
	if p := fromSelector(e); p != "" {
		return p
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		return ""
	}
	out := ""
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && out == "" && len(as.Lhs) == 1 && len(as.Rhs) == 1 && identName(as.Lhs[0]) == id.Name {
			out = fromSelector(as.Rhs[0])
		}
		return out == ""
	})
	return out
}

// delegated follows New and NamespaceScoped when they return the same method of a field
// (return r.store.NamespaceScoped()): the field's type's, or the store's NewFunc and strategy.
func (x *extractor) delegated(t typeRef, name string, fd *ast.FuncDecl, info *storageInfo, depth int) error {
	if (name != "New" || info.kind != "") && (name != "NamespaceScoped" || info.scopeKnown) {
		return nil
	}
	if fd.Body == nil || len(fd.Body.List) != 1 {
		return nil
	}
	ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return nil
	}
	call, ok := ret.Results[0].(*ast.CallExpr)
	if !ok {
		return nil
	}
	m, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || m.Sel.Name != name {
		return nil
	}
	field, ok := m.X.(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	ft, err := x.fieldType(t, field.Sel.Name)
	if err != nil {
		return err
	}
	if ft.pkg+"."+ft.name == genericStore {
		if name == "New" {
			x.newFunc(t, info)
			return nil
		}
		return x.strategyScope(t, info)
	}
	sub := storageInfo{verbs: map[string]bool{}}
	if err := x.collect(ft, &sub, depth+1); err != nil {
		return err
	}
	if name == "New" {
		info.kind, info.kindCite = sub.kind, sub.kindCite
	} else {
		info.namespaced, info.scopeKnown, info.scopeCite = sub.namespaced, sub.scopeKnown, sub.scopeCite
	}
	return nil
}
