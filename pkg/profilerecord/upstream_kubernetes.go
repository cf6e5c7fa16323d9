package profilerecord

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mvpctl/mvpctl/internal/gosrc"
)

// This file reads what kube-apiserver registers, from the k8s.io/kubernetes module of the
// release once a prerelease of it is published (v1.38.0-beta.0): the group/versions on and off
// by default (pkg/controlplane/instance.go), and each resource of the storage providers it
// lists (pkg/registry/<group>/rest): its name and subresources (the storage map's keys), the
// feature gates the registration is guarded by, and, from the storage type, its kind, scope
// and verbs (kubernetes_types.go). go/parser only: no code of the module is built or run.

// KubernetesFacts is what k8s.io/kubernetes of the release registers.
type KubernetesFacts struct {
	Module Module `json:"module"`
	// GroupVersions are the group/versions instance.go lists, with their default.
	GroupVersions []GroupVersionFact `json:"groupVersions"`
	// Resources are the storage providers' resources, sorted by group, version, resource.
	Resources []ResourceFact `json:"resources"`
	// Gates are the feature gates the registrations are guarded by, as they stand at the release.
	Gates []GateFact `json:"gates"`
	// Providers are the storage providers StorageProviders lists, by group.
	Providers []ProviderFact `json:"providers"`
}

// ProviderFact is one storage provider: the group it registers and its GroupName method.
type ProviderFact struct {
	Group string `json:"group"`
	Dir   string `json:"dir"`
	Cite  string `json:"cite"`
}

// GroupVersionFact is one group/version of instance.go's lists.
type GroupVersionFact struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	// Default is true for the lists kube-apiserver enables by default.
	Default bool `json:"default"`
	// List is the variable that lists it.
	List string `json:"list"`
	Cite string `json:"cite"`
}

// GroupVersion is group/version, or the version alone for the core group.
func (g GroupVersionFact) GroupVersion() string {
	if g.Group == "" {
		return g.Version
	}
	return g.Group + "/" + g.Version
}

// GateCondition is a feature gate a registration requires on (Enabled) or off.
type GateCondition struct {
	Name    string `json:"name"`
	Enabled bool   `json:"enabled"`
	Cite    string `json:"cite"`
}

// ResourceFact is one resource a storage provider registers.
type ResourceFact struct {
	Group        string   `json:"group"`
	Version      string   `json:"version"`
	Resource     string   `json:"resource"`
	Kind         string   `json:"kind"`
	Namespaced   bool     `json:"namespaced"`
	Verbs        []string `json:"verbs"`
	Subresources []string `json:"subresources,omitempty"`
	// Gates are the feature-gate conditions the registration sits under.
	Gates []GateCondition `json:"gates,omitempty"`
	// Cite is the storage map assignment; TypeCite the storage type; KindCite and ScopeCite the
	// lines the kind and the scope are read from.
	Cite string `json:"cite"`
	// RemovedIn is the release k8s.io/api's prerelease-lifecycle removes the kind in, when it is
	// the release or before: kube-apiserver does not serve it (deleted_kinds.go).
	RemovedIn   string `json:"removedIn,omitempty"`
	RemovedCite string `json:"removedCite,omitempty"`
	TypeCite    string `json:"typeCite"`
	KindCite    string `json:"kindCite"`
	ScopeCite   string `json:"scopeCite"`
}

// GroupVersion is group/version, or the version alone for the core group.
func (r ResourceFact) GroupVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

const (
	kubernetesModule = "k8s.io/kubernetes"
	instanceFile     = "pkg/controlplane/instance.go"
	registryPrefix   = kubernetesModule + "/pkg/registry/"
)

// goFile is one parsed file of a module.
type goFile struct {
	mod     Module
	rel     string
	data    []byte
	fset    *token.FileSet
	ast     *ast.File
	imports map[string]string // name → import path
}

func (x *extractor) parse(m Module, rel string) (*goFile, error) {
	data, err := os.ReadFile(filepath.Join(m.Dir, filepath.FromSlash(rel)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.ID(), err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, data, 0)
	if err != nil {
		return nil, fmt.Errorf("%s/%s: %w", m.ID(), rel, err)
	}
	g := &goFile{mod: m, rel: rel, data: data, fset: fset, ast: f, imports: map[string]string{}}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := path.Base(p)
		if im.Name != nil {
			name = im.Name.Name
		}
		g.imports[name] = p
	}
	return g, nil
}

func (g *goFile) cite(x *extractor, n ast.Node) string {
	return x.cite(g.mod, g.rel, g.data, g.fset.Position(n.Pos()).Line)
}

// parseDir parses the non-test Go files of a package directory of the module, in name order.
func (x *extractor) parseDir(m Module, rel string) ([]*goFile, error) {
	if fs, ok := x.pkgs[m.ID()+"/"+rel]; ok {
		return fs, nil
	}
	names, err := filepath.Glob(filepath.Join(m.Dir, filepath.FromSlash(rel), "*.go"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []*goFile
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		g, err := x.parse(m, rel+"/"+filepath.Base(n))
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	x.pkgs[m.ID()+"/"+rel] = out
	return out, nil
}

// ExtractKubernetes reads the release's registrations from k8s.io/kubernetes (k) with the
// group names of the release's k8s.io/api (api) and the gates of k and of k8s.io/apiserver.
func ExtractKubernetes(k, api, apiserver Module, minor int) (*KubernetesFacts, []FileHash, error) {
	x := &extractor{hashes: map[string]string{}, pkgs: map[string][]*goFile{}, kube: k, api: api}
	gvs, err := x.groupVersions(api)
	if err != nil {
		return nil, nil, err
	}
	x.apiDirs = map[string]KindFact{}
	for _, gv := range gvs {
		x.apiDirs[gv.dir] = gv
	}
	inst, err := x.parse(k, instanceFile)
	if err != nil {
		return nil, nil, err
	}
	f := &KubernetesFacts{Module: k}
	if f.GroupVersions, err = x.defaultLists(inst); err != nil {
		return nil, nil, err
	}
	providers := x.providers(inst)
	if len(providers) == 0 {
		return nil, nil, fmt.Errorf("%s/%s: no storage provider of pkg/registry in StorageProviders", k.ID(), instanceFile)
	}
	for _, p := range providers {
		rs, pf, err := x.registry(p)
		if err != nil {
			return nil, nil, err
		}
		f.Resources = append(f.Resources, rs...)
		f.Providers = append(f.Providers, pf)
	}
	for i := range f.Resources {
		if err := x.removedIn(&f.Resources[i], minor); err != nil {
			return nil, nil, err
		}
	}
	sort.Slice(f.Resources, func(i, j int) bool { return resourceKey(f.Resources[i]) < resourceKey(f.Resources[j]) })
	if f.Gates, err = x.resourceGates(f.Resources, k, apiserver, minor); err != nil {
		return nil, nil, err
	}
	return f, x.fileHashes(), nil
}

func resourceKey(r ResourceFact) string { return r.Group + "/" + r.Version + "/" + r.Resource }

func (x *extractor) fileHashes() []FileHash {
	var out []FileHash
	for file, h := range x.hashes {
		out = append(out, FileHash{File: file, SHA256: h})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out
}

// defaultLists reads instance.go's lists of group/versions: the ...EnabledByDefault lists are
// on by default, the ...DisabledByDefault ones off.
func (x *extractor) defaultLists(inst *goFile) ([]GroupVersionFact, error) {
	var out []GroupVersionFact
	for _, decl := range inst.ast.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				on, off := strings.HasSuffix(n.Name, "EnabledByDefault"), strings.HasSuffix(n.Name, "DisabledByDefault")
				lit, ok := valueAt(vs, i).(*ast.CompositeLit)
				if !ok || (!on && !off) {
					continue
				}
				for _, e := range lit.Elts {
					sel, ok := e.(*ast.SelectorExpr)
					pkg, ok2 := selectorPkg(sel)
					if !ok || !ok2 || sel.Sel.Name != "SchemeGroupVersion" {
						continue
					}
					gv, err := x.gvOfImport(inst.imports[pkg])
					if err != nil {
						return nil, fmt.Errorf("%s/%s: %s: %w", inst.mod.ID(), inst.rel, n.Name, err)
					}
					out = append(out, GroupVersionFact{Group: gv.Group, Version: gv.Version, Default: on, List: n.Name, Cite: inst.cite(x, e)})
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s/%s: no ...EnabledByDefault or ...DisabledByDefault list", inst.mod.ID(), inst.rel)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].GroupVersion() < out[j].GroupVersion() })
	return dedupGVs(out), nil
}

// dedupGVs keeps one entry of a group/version listed twice in the same list (instance.go lists
// apiserverinternal/v1alpha1 twice).
func dedupGVs(in []GroupVersionFact) []GroupVersionFact {
	var out []GroupVersionFact
	for _, g := range in {
		if n := len(out); n > 0 && out[n-1].GroupVersion() == g.GroupVersion() && out[n-1].List == g.List {
			continue
		}
		out = append(out, g)
	}
	return out
}

func valueAt(vs *ast.ValueSpec, i int) ast.Expr {
	if i < len(vs.Values) {
		return vs.Values[i]
	}
	return nil
}

func selectorPkg(sel *ast.SelectorExpr) (string, bool) {
	if sel == nil {
		return "", false
	}
	id, ok := sel.X.(*ast.Ident)
	if !ok {
		return "", false
	}
	return id.Name, true
}

// gvOfImport is the group/version of a versioned API package: k8s.io/api/<dir> by its
// register.go (groupVersions), k8s.io/kubernetes/pkg/apis/<group>/<version> by the GroupName
// of its register.go or its parent's.
func (x *extractor) gvOfImport(p string) (KindFact, error) {
	if rest, ok := strings.CutPrefix(p, "k8s.io/api/"); ok {
		if gv, ok := x.apiDirs[rest]; ok {
			return gv, nil
		}
		return KindFact{}, fmt.Errorf("%s is not a group/version package of %s", p, x.api.ID())
	}
	if rest, ok := strings.CutPrefix(p, kubernetesModule+"/"); ok && apiVersionDir.MatchString(path.Base(rest)) {
		group, err := x.groupName(path.Dir(rest))
		return KindFact{Group: group, Version: path.Base(rest)}, err
	}
	return KindFact{}, fmt.Errorf("%s: not a versioned API package", p)
}

// groupName is the GroupName constant of a package of k8s.io/kubernetes (pkg/apis/<group>).
func (x *extractor) groupName(rel string) (string, error) {
	files, err := x.parseDir(x.kube, rel)
	if err != nil {
		return "", err
	}
	for _, g := range files {
		if s, _, ok := gosrc.StringConst(g.ast, "GroupName"); ok {
			return s, nil
		}
	}
	return "", fmt.Errorf("%s/%s: no GroupName", x.kube.ID(), rel)
}
