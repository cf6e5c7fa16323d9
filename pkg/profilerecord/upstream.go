package profilerecord

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
)

// This file reads what a Kubernetes release will serve from its published modules, before
// its kube-apiserver can be built (k8s.io/kubernetes publishes no module of a release before
// it ships, k8s.io/api and k8s.io/apiserver do): the kinds whose prerelease-lifecycle says
// they are removed or introduced in the release (k8s.io/api zz_generated.prerelease-lifecycle.go,
// which kube-apiserver applies at startup, k8s.io/apiserver pkg/server/deleted_kinds.go), the
// group/version packages added or removed since the base release, and the feature gates of
// k8s.io/apiserver pkg/features/kube_features.go. The facts are written to a small file that
// is committed; Derive makes the provisional profile from it without network or toolchain.

// Module is one published module read, as `go mod download -json` reports it.
type Module struct {
	Path    string `json:"path"`
	Version string `json:"version"`
	// Sum is its go.sum hash (h1:…): the module cache verified the files against it.
	Sum string `json:"sum"`
	// Time is when the version was published.
	Time string `json:"time,omitempty"`
	// Dir is where the module cache holds it (not written to the facts file).
	Dir string `json:"-"`
}

// ID is path@version.
func (m Module) ID() string { return m.Path + "@" + m.Version }

// KindFact is one kind of k8s.io/api and the line that says it.
type KindFact struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
	// Cite is module@version/file:line.
	Cite string `json:"cite"`
	// dir is the package's directory in the module (slash-separated).
	dir string
}

// GroupVersion is group/version, or the version alone for the core group.
func (k KindFact) GroupVersion() string {
	if k.Group == "" {
		return k.Version
	}
	return k.Group + "/" + k.Version
}

// GateFact is one feature gate of k8s.io/apiserver at the release.
type GateFact struct {
	Name    string `json:"name"`
	Default bool   `json:"default"`
	Stage   string `json:"stage"`
	Locked  bool   `json:"locked,omitempty"`
	Cite    string `json:"cite"`
}

// PeerProxyFact says whether the peer proxy's code changed between the releases.
type PeerProxyFact struct {
	Dir string `json:"dir"`
	// Files is how many files the release's directory holds.
	Files int `json:"files"`
	// Identical is true when both directories hold the same files, byte for byte.
	Identical bool `json:"identical"`
	// Changed lists the files added, removed or changed, when not identical.
	Changed []string `json:"changed,omitempty"`
}

// FileHash is the SHA-256 of one file a fact cites.
type FileHash struct {
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
}

// UpstreamFacts is what the published modules of a release say that a profile holds.
type UpstreamFacts struct {
	// Release is the minor the modules are a prerelease of ("1.38").
	Release string `json:"release"`
	// Modules are the release's modules, then the base release's they are compared with.
	Modules []Module `json:"modules"`
	// Removed are the kinds whose lifecycle says they are no longer served from Release.
	Removed []KindFact `json:"removed"`
	// Introduced are the kinds whose lifecycle says they are new in Release.
	Introduced []KindFact `json:"introduced"`
	// GroupVersionsAdded and GroupVersionsRemoved are k8s.io/api's group/version packages
	// (Kind empty) that the release has and the base release has not, and the reverse.
	GroupVersionsAdded   []KindFact `json:"groupVersionsAdded"`
	GroupVersionsRemoved []KindFact `json:"groupVersionsRemoved"`
	// ProxyGate is the peer-proxy feature gate at Release.
	ProxyGate GateFact `json:"proxyGate"`
	// GatesAdded and GatesRemoved are k8s.io/apiserver's gates the release has that the base
	// release has not, and the reverse.
	GatesAdded   []GateFact `json:"gatesAdded"`
	GatesRemoved []GateFact `json:"gatesRemoved"`
	// PeerProxy compares k8s.io/apiserver's pkg/util/peerproxy, the proxy's code, in the
	// release and the base release.
	PeerProxy PeerProxyFact `json:"peerProxy"`
	// Files hashes every file cited, so that a re-extraction shows the facts came from them.
	Files []FileHash `json:"files"`
}

// Marshal is the facts file's bytes: indented JSON, fields in a fixed order, lists sorted.
func (f *UpstreamFacts) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ReadUpstreamFacts reads a facts file.
func ReadUpstreamFacts(data []byte) (*UpstreamFacts, error) {
	var f UpstreamFacts
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not a facts file: %w", err)
	}
	if _, err := releaseMinor(f.Release); err != nil {
		return nil, err
	}
	if len(f.Modules) != 4 {
		return nil, fmt.Errorf("%d modules: want k8s.io/api and k8s.io/apiserver of the release and of the base", len(f.Modules))
	}
	return &f, nil
}

// The modules read, in the order UpstreamSources lists them.
const (
	apiModule       = "k8s.io/api"
	apiserverModule = "k8s.io/apiserver"
)

// UpstreamSources are the modules the facts are read from: k8s.io/api and k8s.io/apiserver of
// the release (a prerelease, v0.38.0-alpha.2 for 1.38) and of the base release (the version
// of the recorded profile the provisional one is derived from, v0.37.2 for v1.37.2).
type UpstreamSources struct {
	API, APIServer, BaseAPI, BaseAPIServer Module
}

// ModuleVersions are the module versions to read for a release's prerelease modules
// (v0.38.0-alpha.2) and a base profile's version (v1.37.2 reads v0.37.2).
func ModuleVersions(prerelease, baseProfile string) (release, base string, err error) {
	m := regexp.MustCompile(`^v0\.(\d+)\.0-(alpha|beta|rc)\.\d+$`).FindStringSubmatch(prerelease)
	if m == nil {
		return "", "", fmt.Errorf("%q is not a prerelease module version (v0.MINOR.0-alpha.N, -beta.N or -rc.N)", prerelease)
	}
	b := regexp.MustCompile(`^v1\.(\d+)\.(\d+)$`).FindStringSubmatch(baseProfile)
	if b == nil {
		return "", "", fmt.Errorf("base profile %q is not a release version (v1.MINOR.PATCH)", baseProfile)
	}
	if rm, _ := strconv.Atoi(m[1]); rm != atoi(b[1])+1 {
		return "", "", fmt.Errorf("modules %s are of 1.%s, not of the minor after the newest recorded profile %s", prerelease, m[1], baseProfile)
	}
	return "1." + m[1], "v0." + b[1] + "." + b[2], nil
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// ExtractUpstream reads the facts of release ("1.38") from the modules' directories.
func ExtractUpstream(release string, src UpstreamSources) (*UpstreamFacts, error) {
	minor, err := releaseMinor(release)
	if err != nil {
		return nil, err
	}
	x := &extractor{hashes: map[string]string{}}
	f := &UpstreamFacts{Release: release, Modules: []Module{src.API, src.APIServer, src.BaseAPI, src.BaseAPIServer},
		Removed: []KindFact{}, Introduced: []KindFact{}, GatesAdded: []GateFact{}, GatesRemoved: []GateFact{}}
	gvs, err := x.groupVersions(src.API)
	if err != nil {
		return nil, err
	}
	baseGVs, err := x.groupVersions(src.BaseAPI)
	if err != nil {
		return nil, err
	}
	f.GroupVersionsAdded, f.GroupVersionsRemoved = diffGVs(gvs, baseGVs), diffGVs(baseGVs, gvs)
	for _, gv := range gvs {
		if err := x.lifecycle(src.API, gv, minor, f); err != nil {
			return nil, err
		}
	}
	gates, err := x.gates(src.APIServer, minor)
	if err != nil {
		return nil, err
	}
	baseGates, err := x.gates(src.BaseAPIServer, minor-1)
	if err != nil {
		return nil, err
	}
	g, ok := gates[mvp.FeatureGate]
	if !ok {
		return nil, fmt.Errorf("%s pkg/features/kube_features.go has no %s", src.APIServer.ID(), mvp.FeatureGate)
	}
	f.ProxyGate = g
	if f.PeerProxy, err = comparePeerProxy(src.APIServer, src.BaseAPIServer); err != nil {
		return nil, err
	}
	f.GatesAdded, f.GatesRemoved = diffGates(gates, baseGates), diffGates(baseGates, gates)
	for _, list := range [][]KindFact{f.Removed, f.Introduced} {
		sort.Slice(list, func(i, j int) bool { return kindKey(list[i]) < kindKey(list[j]) })
	}
	cited := map[string]bool{}
	for _, list := range [][]KindFact{f.Removed, f.Introduced, f.GroupVersionsAdded, f.GroupVersionsRemoved} {
		for _, k := range list {
			cited[k.Cite[:strings.LastIndex(k.Cite, ":")]] = true
		}
	}
	for _, g := range append(append([]GateFact{f.ProxyGate}, f.GatesAdded...), f.GatesRemoved...) {
		cited[g.Cite[:strings.LastIndex(g.Cite, ":")]] = true
	}
	for file := range cited {
		f.Files = append(f.Files, FileHash{File: file, SHA256: x.hashes[file]})
	}
	sort.Slice(f.Files, func(i, j int) bool { return f.Files[i].File < f.Files[j].File })
	return f, nil
}

// BaseMinor is the minor before Release, whose recorded profile the provisional one is
// derived from ("1.37").
func (f *UpstreamFacts) BaseMinor() string {
	m, _ := releaseMinor(f.Release)
	return fmt.Sprintf("1.%d", m-1)
}

func releaseMinor(release string) (int, error) {
	m := regexp.MustCompile(`^1\.(\d+)$`).FindStringSubmatch(release)
	if m == nil {
		return 0, fmt.Errorf("release %q: want 1.MINOR", release)
	}
	return atoi(m[1]), nil
}

func kindKey(k KindFact) string { return k.Group + "/" + k.Version + "/" + k.Kind }

type extractor struct {
	hashes map[string]string // module@version/file → sha256
}

// cite is module@version/file:line, and hashes the file once.
func (x *extractor) cite(m Module, rel string, data []byte, line int) string {
	key := m.ID() + "/" + rel
	if _, ok := x.hashes[key]; !ok {
		x.hashes[key] = sha256Hex(data)
	}
	return fmt.Sprintf("%s:%d", key, line)
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// apiVersionDir is a group/version package directory's last element.
var apiVersionDir = regexp.MustCompile(`^v\d+((alpha|beta)\d+)?$`)

// groupVersions lists k8s.io/api's group/version packages: directories named for a version
// whose register.go declares GroupName. Kind is empty; Cite is GroupName's line.
func (x *extractor) groupVersions(m Module) ([]KindFact, error) {
	var out []KindFact
	err := filepath.WalkDir(m.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() || !apiVersionDir.MatchString(d.Name()) {
			return nil
		}
		rel, _ := filepath.Rel(m.Dir, filepath.Join(p, "register.go"))
		data, err := os.ReadFile(filepath.Join(p, "register.go"))
		if err != nil {
			return nil // not a group/version package
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, rel, data, 0)
		if err != nil {
			return fmt.Errorf("%s/%s: %w", m.ID(), rel, err)
		}
		group, line, ok := stringConst(file, fset, "GroupName")
		if !ok {
			return nil
		}
		out = append(out, KindFact{Group: group, Version: d.Name(), Cite: x.cite(m, filepath.ToSlash(rel), data, line), dir: path.Dir(filepath.ToSlash(rel))})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return kindKey(out[i]) < kindKey(out[j]) })
	return out, nil
}

func stringConst(file *ast.File, fset *token.FileSet, name string) (string, int, bool) {
	for _, decl := range file.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if n.Name != name || i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, err := strconv.Unquote(lit.Value)
					if err == nil {
						return s, fset.Position(lit.Pos()).Line, true
					}
				}
			}
		}
	}
	return "", 0, false
}

func diffGVs(a, b []KindFact) []KindFact {
	in := map[string]bool{}
	for _, k := range b {
		in[k.GroupVersion()] = true
	}
	out := []KindFact{}
	for _, k := range a {
		if !in[k.GroupVersion()] {
			out = append(out, k)
		}
	}
	return out
}

// lifecycle adds the kinds of gv that its zz_generated.prerelease-lifecycle.go says are removed
// or introduced in minor. List kinds are left out: a profile lists resources by their kind.
func (x *extractor) lifecycle(m Module, gv KindFact, minor int, f *UpstreamFacts) error {
	rel := gv.dir + "/zz_generated.prerelease-lifecycle.go"
	data, err := os.ReadFile(filepath.Join(m.Dir, filepath.FromSlash(rel)))
	if err != nil {
		return nil // a GA group/version: no prerelease lifecycle
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, rel, data, 0)
	if err != nil {
		return fmt.Errorf("%s/%s: %w", m.ID(), rel, err)
	}
	for _, decl := range file.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 || fd.Body == nil || len(fd.Body.List) != 1 {
			continue
		}
		star, ok := fd.Recv.List[0].Type.(*ast.StarExpr)
		if !ok {
			continue
		}
		kind, ok := star.X.(*ast.Ident)
		if !ok || strings.HasSuffix(kind.Name, "List") {
			continue
		}
		ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
		if !ok || len(ret.Results) != 2 {
			continue
		}
		major, minorAt := intLit(ret.Results[0]), intLit(ret.Results[1])
		if major != 1 || minorAt != minor {
			continue
		}
		k := KindFact{Group: gv.Group, Version: gv.Version, Kind: kind.Name, Cite: x.cite(m, rel, data, fset.Position(ret.Pos()).Line)}
		switch fd.Name.Name {
		case "APILifecycleRemoved":
			f.Removed = append(f.Removed, k)
		case "APILifecycleIntroduced":
			f.Introduced = append(f.Introduced, k)
		}
	}
	return nil
}

func intLit(e ast.Expr) int {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.INT {
		return -1
	}
	n, err := strconv.Atoi(lit.Value)
	if err != nil {
		return -1
	}
	return n
}

const featuresFile = "pkg/features/kube_features.go"

// gates reads k8s.io/apiserver's versioned feature gates (defaultVersionedKubernetesFeatureGates)
// as they stand at minor: the last spec whose version is not after it.
func (x *extractor) gates(m Module, minor int) (map[string]GateFact, error) {
	data, err := os.ReadFile(filepath.Join(m.Dir, filepath.FromSlash(featuresFile)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.ID(), err)
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, featuresFile, data, 0)
	if err != nil {
		return nil, fmt.Errorf("%s/%s: %w", m.ID(), featuresFile, err)
	}
	names := map[string]string{} // constant → gate name
	var specs *ast.CompositeLit
	for _, decl := range file.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range gd.Specs {
			vs, ok := spec.(*ast.ValueSpec)
			if !ok {
				continue
			}
			for i, n := range vs.Names {
				if i >= len(vs.Values) {
					continue
				}
				switch v := vs.Values[i].(type) {
				case *ast.BasicLit:
					if s, err := strconv.Unquote(v.Value); gd.Tok == token.CONST && err == nil {
						names[n.Name] = s
					}
				case *ast.CompositeLit:
					if n.Name == "defaultVersionedKubernetesFeatureGates" {
						specs = v
					}
				}
			}
		}
	}
	if specs == nil {
		return nil, fmt.Errorf("%s/%s: no defaultVersionedKubernetesFeatureGates", m.ID(), featuresFile)
	}
	out := map[string]GateFact{}
	for _, elt := range specs.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		key, ok := kv.Key.(*ast.Ident)
		list, ok2 := kv.Value.(*ast.CompositeLit)
		if !ok || !ok2 || names[key.Name] == "" {
			continue
		}
		g := GateFact{Name: names[key.Name]}
		found := false
		for _, s := range list.Elts {
			spec, ok := s.(*ast.CompositeLit)
			if !ok {
				continue
			}
			at, fields := -1, map[string]ast.Expr{}
			for _, e := range spec.Elts {
				if f, ok := e.(*ast.KeyValueExpr); ok {
					if id, ok := f.Key.(*ast.Ident); ok {
						fields[id.Name] = f.Value
					}
				}
			}
			if call, ok := fields["Version"].(*ast.CallExpr); ok && len(call.Args) == 1 {
				if lit, ok := call.Args[0].(*ast.BasicLit); ok {
					if v, err := strconv.Unquote(lit.Value); err == nil {
						if mm := regexp.MustCompile(`^1\.(\d+)$`).FindStringSubmatch(v); mm != nil {
							at = atoi(mm[1])
						}
					}
				}
			}
			if at < 0 || at > minor {
				continue
			}
			found = true
			g.Default = identName(fields["Default"]) == "true"
			g.Locked = identName(fields["LockToDefault"]) == "true"
			g.Stage = selectorName(fields["PreRelease"])
			g.Cite = x.cite(m, featuresFile, data, fset.Position(spec.Pos()).Line)
		}
		if found {
			out[g.Name] = g
		}
	}
	return out, nil
}

func identName(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

func selectorName(e ast.Expr) string {
	if s, ok := e.(*ast.SelectorExpr); ok {
		return s.Sel.Name
	}
	return identName(e)
}

func diffGates(a, b map[string]GateFact) []GateFact {
	out := []GateFact{}
	for name, g := range a {
		if _, ok := b[name]; !ok {
			out = append(out, g)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

const peerProxyDir = "pkg/util/peerproxy"

// comparePeerProxy compares the peer proxy's directory of two k8s.io/apiserver versions.
func comparePeerProxy(m, base Module) (PeerProxyFact, error) {
	a, err := treeHashes(m.Dir, peerProxyDir)
	if err != nil {
		return PeerProxyFact{}, fmt.Errorf("%s: %w", m.ID(), err)
	}
	b, err := treeHashes(base.Dir, peerProxyDir)
	if err != nil {
		return PeerProxyFact{}, fmt.Errorf("%s: %w", base.ID(), err)
	}
	f := PeerProxyFact{Dir: peerProxyDir, Files: len(a)}
	for name, h := range a {
		if b[name] != h {
			f.Changed = append(f.Changed, name)
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			f.Changed = append(f.Changed, name)
		}
	}
	sort.Strings(f.Changed)
	f.Identical = len(f.Changed) == 0 && len(a) > 0
	return f, nil
}

// treeHashes hashes every file under dir/rel, by its path below dir/rel.
func treeHashes(dir, rel string) (map[string]string, error) {
	root := filepath.Join(dir, filepath.FromSlash(rel))
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		name, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(name)] = sha256Hex(data)
		return nil
	})
	return out, err
}
