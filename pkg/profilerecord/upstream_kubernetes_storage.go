package profilerecord

import (
	"fmt"
	"go/ast"
	"go/token"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// storageKey is what a storage map key may be: a resource, or resource/subresource.
var storageKey = regexp.MustCompile(`^[a-z0-9]+(/[a-z]+)?$`)

// mapWalker walks one storage function's statements, with the string variables bound by
// enclosing if-statements (if resource := "pods"; …) and the feature-gate conditions they test.
type mapWalker struct {
	x              *extractor
	g              *goFile
	fd             *ast.FuncDecl
	group, version string
	out            []ResourceFact
	err            error
}

func (x *extractor) storageMap(g *goFile, fd *ast.FuncDecl, group, version string) ([]ResourceFact, error) {
	w := &mapWalker{x: x, g: g, fd: fd, group: group, version: version}
	w.stmts(fd.Body.List, map[string]string{}, nil)
	return w.out, w.err
}

func (w *mapWalker) stmts(list []ast.Stmt, env map[string]string, gates []GateCondition) {
	for _, s := range list {
		if w.err != nil {
			return
		}
		w.stmt(s, env, gates)
	}
}

func (w *mapWalker) stmt(s ast.Stmt, env map[string]string, gates []GateCondition) {
	switch s := s.(type) {
	case *ast.BlockStmt:
		w.stmts(s.List, env, gates)
	case *ast.IfStmt:
		inner := env
		if as, ok := s.Init.(*ast.AssignStmt); ok {
			inner = bind(env, as)
		}
		cond := w.gateConditions(s.Cond)
		w.stmts(s.Body.List, inner, append(append([]GateCondition{}, gates...), cond...))
		if s.Else != nil {
			var neg []GateCondition
			if len(cond) == 1 { // else of one gate test: the gate the other way
				neg = []GateCondition{{Name: cond[0].Name, Enabled: !cond[0].Enabled, Cite: cond[0].Cite}}
			}
			w.stmt(s.Else, inner, append(append([]GateCondition{}, gates...), neg...))
		}
	case *ast.ForStmt:
		w.stmts(s.Body.List, env, gates)
	case *ast.RangeStmt:
		w.stmts(s.Body.List, env, gates)
	case *ast.AssignStmt:
		w.assign(s, env, gates)
	}
}

// bind adds the string constants an if-statement's init defines.
func bind(env map[string]string, as *ast.AssignStmt) map[string]string {
	out := map[string]string{}
	for k, v := range env {
		out[k] = v
	}
	for i, l := range as.Lhs {
		id, ok := l.(*ast.Ident)
		if !ok || i >= len(as.Rhs) {
			continue
		}
		if lit, ok := as.Rhs[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			out[id.Name], _ = strconv.Unquote(lit.Value)
		}
	}
	return out
}

// gateConditions are the feature gates a condition tests: X.Enabled(features.G) on, !… off;
// the terms of an && each. Anything else tests no gate.
func (w *mapWalker) gateConditions(e ast.Expr) []GateCondition {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return w.gateConditions(e.X)
	case *ast.BinaryExpr:
		if e.Op == token.LAND {
			return append(w.gateConditions(e.X), w.gateConditions(e.Y)...)
		}
	case *ast.UnaryExpr:
		if e.Op == token.NOT {
			if c := w.gateConditions(e.X); len(c) == 1 {
				c[0].Enabled = !c[0].Enabled
				return c
			}
		}
	case *ast.CallExpr:
		fun, ok := e.Fun.(*ast.SelectorExpr)
		if !ok || fun.Sel.Name != "Enabled" || len(e.Args) != 1 {
			return nil
		}
		if arg, ok := e.Args[0].(*ast.SelectorExpr); ok {
			return []GateCondition{{Name: arg.Sel.Name, Enabled: true, Cite: w.g.cite(w.x, e)}}
		}
	}
	return nil
}

// key is the string a storage map key expression stands for.
func key(e ast.Expr, env map[string]string) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		s, err := strconv.Unquote(e.Value)
		return s, err == nil && e.Kind == token.STRING
	case *ast.Ident:
		s, ok := env[e.Name]
		return s, ok
	case *ast.BinaryExpr:
		a, ok1 := key(e.X, env)
		b, ok2 := key(e.Y, env)
		return a + b, ok1 && ok2 && e.Op == token.ADD
	}
	return "", false
}

// assign records storage[key] = value: a subresource by its key, a resource with what its
// storage type says.
func (w *mapWalker) assign(as *ast.AssignStmt, env map[string]string, gates []GateCondition) {
	if len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return
	}
	ix, ok := as.Lhs[0].(*ast.IndexExpr)
	if !ok {
		return
	}
	if _, ok := ix.X.(*ast.Ident); !ok {
		return
	}
	k, ok := key(ix.Index, env)
	if !ok || !storageKey.MatchString(k) {
		return
	}
	r := ResourceFact{Group: w.group, Version: w.version, Resource: k, Gates: gates, Cite: w.g.cite(w.x, as)}
	if strings.Contains(k, "/") {
		w.out = append(w.out, r)
		return
	}
	t, err := w.x.resolveValue(w.g, w.fd, as.Rhs[0], 0)
	if err != nil {
		w.err = fmt.Errorf("%s: storage of %s/%s: %w", r.Cite, r.GroupVersion(), k, err)
		return
	}
	info, err := w.x.typeInfo(t, false)
	if err != nil {
		w.err = fmt.Errorf("%s: storage of %s/%s: %w", r.Cite, r.GroupVersion(), k, err)
		return
	}
	if info.kind == "" { // a wrapper of a store passed to its constructor (rbac's policybased)
		w.wrappedKind(as.Rhs[0], &info)
	}
	if info.kind == "" {
		w.err = fmt.Errorf("%s: storage of %s/%s: %s.%s wraps a storage whose kind cannot be told", r.Cite, r.GroupVersion(), k, t.pkg, t.name)
		return
	}
	r.Kind, r.Namespaced, r.Verbs = info.kind, info.namespaced, sortedVerbs(info.verbs)
	r.TypeCite, r.KindCite, r.ScopeCite = info.typeCite, info.kindCite, info.scopeCite
	w.out = append(w.out, r)
}

// resourceGates are the gates the registrations test, as they stand at minor: from
// k8s.io/kubernetes pkg/features/kube_features.go, or k8s.io/apiserver's for its own gates.
func (x *extractor) resourceGates(rs []ResourceFact, k, apiserver Module, minor int) ([]GateFact, error) {
	kube, err := x.gates(k, minor)
	if err != nil {
		return nil, err
	}
	generic, err := x.gates(apiserver, minor)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	out := []GateFact{}
	for _, r := range rs {
		for _, c := range r.Gates {
			if seen[c.Name] {
				continue
			}
			seen[c.Name] = true
			g, ok := kube[c.Name]
			if !ok {
				g, ok = generic[c.Name]
			}
			if !ok {
				return nil, fmt.Errorf("%s tests gate %s, which neither %s nor %s declares at 1.%d", c.Cite, c.Name, k.ID(), apiserver.ID(), minor)
			}
			out = append(out, g)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// wrappedKind takes the kind of the storage a wrapper's constructor is given.
func (w *mapWalker) wrappedKind(e ast.Expr, info *storageInfo) {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return
	}
	for _, a := range call.Args {
		id, ok := a.(*ast.Ident)
		if !ok {
			continue
		}
		t, err := w.x.resolveIdent(w.g, w.fd, id.Name, id.Pos())
		if err != nil {
			continue
		}
		if in, err := w.x.typeInfo(t, false); err == nil && in.kind != "" {
			info.kind, info.kindCite = in.kind, in.kindCite
			return
		}
	}
}
