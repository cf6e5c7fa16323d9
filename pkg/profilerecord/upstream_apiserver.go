package profilerecord

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
)

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
	names, specs := gateConstants(file)
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
		if g, found := x.gateAt(m, minor, names[key.Name], list, data, fset); found {
			out[g.Name] = g
		}
	}
	return out, nil
}

// gateConstants reads the features file's string constants (constant → gate name) and the
// defaultVersionedKubernetesFeatureGates map (nil when it has none).
func gateConstants(file *ast.File) (map[string]string, *ast.CompositeLit) {
	names := map[string]string{}
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
	return names, specs
}

// gateAt is the gate named name as its list of versioned specs sets it at minor: the last spec
// whose version is not after minor; found is false when every spec is after it.
func (x *extractor) gateAt(m Module, minor int, name string, list *ast.CompositeLit, data []byte, fset *token.FileSet) (GateFact, bool) {
	g := GateFact{Name: name}
	found := false
	for _, s := range list.Elts {
		spec, ok := s.(*ast.CompositeLit)
		if !ok {
			continue
		}
		fields := specFields(spec)
		if at := specMinor(fields); at < 0 || at > minor {
			continue
		}
		found = true
		g.Default = identName(fields["Default"]) == "true"
		g.Locked = identName(fields["LockToDefault"]) == "true"
		g.Stage = selectorName(fields["PreRelease"])
		g.Cite = x.cite(m, featuresFile, data, fset.Position(spec.Pos()).Line)
	}
	return g, found
}

// specFields are a versioned spec's fields by name.
func specFields(spec *ast.CompositeLit) map[string]ast.Expr {
	fields := map[string]ast.Expr{}
	for _, e := range spec.Elts {
		if f, ok := e.(*ast.KeyValueExpr); ok {
			if id, ok := f.Key.(*ast.Ident); ok {
				fields[id.Name] = f.Value
			}
		}
	}
	return fields
}

// specMinor is the minor of a versioned spec's Version: version.MustParse("1.N"); -1 for
// any other form.
func specMinor(fields map[string]ast.Expr) int {
	if call, ok := fields["Version"].(*ast.CallExpr); ok && len(call.Args) == 1 {
		if lit, ok := call.Args[0].(*ast.BasicLit); ok {
			if v, err := strconv.Unquote(lit.Value); err == nil {
				if mm := regexp.MustCompile(`^1\.(\d+)$`).FindStringSubmatch(v); mm != nil {
					return atoi(mm[1])
				}
			}
		}
	}
	return -1
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
