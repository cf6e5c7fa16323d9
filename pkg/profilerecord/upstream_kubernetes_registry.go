package profilerecord

import (
	"fmt"
	"go/ast"
	"regexp"
	"sort"
	"strings"
)

// This file reads the storage providers kube-apiserver's StorageProviders lists: each
// provider's group and storage functions, and k8s.io/api's lifecycle of each kind registered.

// providers are the pkg/registry packages StorageProviders names, in its order.
func (x *extractor) providers(inst *goFile) []string {
	var out []string
	seen := map[string]bool{}
	for _, decl := range inst.ast.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Name.Name != "StorageProviders" || fd.Body == nil {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			pkg, ok2 := selectorPkg(sel)
			if !ok || !ok2 {
				return true
			}
			if p := inst.imports[pkg]; strings.HasPrefix(p, registryPrefix) && !seen[p] {
				seen[p] = true
				out = append(out, strings.TrimPrefix(p, kubernetesModule+"/"))
			}
			return true
		})
	}
	return out
}

// storageFunc is a function of a provider that fills a storage map, and its version: vNStorage,
// or NewRESTStorage of the core group (which has v1 only).
var storageFunc = regexp.MustCompile(`^(v\d+(?:(?:alpha|beta)\d+)?)Storage$`)

// registry reads one provider package's storage maps.
func (x *extractor) registry(rel string) ([]ResourceFact, ProviderFact, error) {
	files, err := x.parseDir(x.kube, rel)
	if err != nil {
		return nil, ProviderFact{}, err
	}
	group, cite, err := x.providerGroup(files)
	if err != nil {
		return nil, ProviderFact{}, fmt.Errorf("%s/%s: %w", x.kube.ID(), rel, err)
	}
	pf := ProviderFact{Group: group, Dir: rel, Cite: cite}
	byArg := x.versionArgs(files)
	var out []ResourceFact
	for _, g := range files {
		for _, decl := range g.ast.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			var versions []string
			if m := storageFunc.FindStringSubmatch(fd.Name.Name); m != nil {
				versions = []string{m[1]}
			} else if group == "" && fd.Name.Name == "NewRESTStorage" {
				versions = []string{"v1"}
			} else if fd.Recv != nil {
				versions = byArg[fd.Name.Name]
			}
			for _, version := range versions {
				rs, err := x.storageMap(g, fd, group, version)
				if err != nil {
					return nil, pf, err
				}
				out = append(out, rs...)
			}
		}
	}
	return mergeResources(out), pf, nil
}

// versionArgs are the versions a provider's methods are called with (p.storage(rbacv1.
// SchemeGroupVersion, …)): one storage function serving several versions.
func (x *extractor) versionArgs(files []*goFile) map[string][]string {
	out := map[string][]string{}
	for _, g := range files {
		ast.Inspect(g.ast, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fun, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := fun.X.(*ast.Ident); !ok || g.imports[id.Name] != "" {
				return true
			}
			for _, a := range call.Args {
				sel, ok := a.(*ast.SelectorExpr)
				pkg, ok2 := selectorPkg(sel)
				if !ok || !ok2 || sel.Sel.Name != "SchemeGroupVersion" {
					continue
				}
				if gv, err := x.gvOfImport(g.imports[pkg]); err == nil && !contains(out[fun.Sel.Name], gv.Version) {
					out[fun.Sel.Name] = append(out[fun.Sel.Name], gv.Version)
				}
			}
			return true
		})
	}
	return out
}

// providerGroup is the group a provider's GroupName method returns (pkg.GroupName).
func (x *extractor) providerGroup(files []*goFile) (string, string, error) {
	for _, g := range files {
		for _, decl := range g.ast.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || fd.Name.Name != "GroupName" || fd.Body == nil || len(fd.Body.List) != 1 {
				continue
			}
			ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
			if !ok || len(ret.Results) != 1 {
				continue
			}
			sel, _ := ret.Results[0].(*ast.SelectorExpr)
			if pkg, ok := selectorPkg(sel); ok && sel.Sel.Name == "GroupName" {
				group, err := x.groupName(strings.TrimPrefix(g.imports[pkg], kubernetesModule+"/"))
				return group, g.cite(x, fd), err
			}
		}
	}
	return "", "", fmt.Errorf("no GroupName method returning a package's GroupName")
}

// removedIn reads the kind's APILifecycleRemoved from k8s.io/api's prerelease-lifecycle of its
// group/version, and records it when it is the release or before.
func (x *extractor) removedIn(r *ResourceFact, minor int) error {
	dir := ""
	for d, gv := range x.apiDirs {
		if gv.Group == r.Group && gv.Version == r.Version {
			dir = d
		}
	}
	if dir == "" {
		return nil // a group/version of k8s.io/kubernetes only (flowcontrol's): no lifecycle there
	}
	rel := dir + "/zz_generated.prerelease-lifecycle.go"
	g, err := x.parse(x.api, rel)
	if err != nil {
		return nil // a GA group/version: no prerelease lifecycle
	}
	for _, decl := range g.ast.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Name.Name != "APILifecycleRemoved" || fd.Recv == nil || len(fd.Body.List) != 1 {
			continue
		}
		star, ok := fd.Recv.List[0].Type.(*ast.StarExpr)
		if !ok || identName(star.X) != r.Kind {
			continue
		}
		ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
		if ok && len(ret.Results) == 2 && intLit(ret.Results[0]) == 1 && intLit(ret.Results[1]) <= minor {
			r.RemovedIn = fmt.Sprintf("1.%d", intLit(ret.Results[1]))
			r.RemovedCite = g.cite(x, ret)
		}
	}
	return nil
}

// mergeResources folds subresource entries ("pods/status") into their resource.
func mergeResources(in []ResourceFact) []ResourceFact {
	byKey := map[string]int{}
	var out []ResourceFact
	var subs []ResourceFact
	for _, r := range in {
		if strings.Contains(r.Resource, "/") {
			subs = append(subs, r)
			continue
		}
		if _, dup := byKey[resourceKey(r)]; dup {
			continue
		}
		byKey[resourceKey(r)] = len(out)
		out = append(out, r)
	}
	for _, s := range subs {
		parent, sub, _ := strings.Cut(s.Resource, "/")
		i, ok := byKey[s.Group+"/"+s.Version+"/"+parent]
		if ok && !contains(out[i].Subresources, sub) {
			out[i].Subresources = append(out[i].Subresources, sub)
			sort.Strings(out[i].Subresources)
		}
	}
	return out
}
