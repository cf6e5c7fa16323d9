package profilerecord

import (
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

	"github.com/mvpctl/mvpctl/internal/gosrc"
)

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
		group, at, ok := gosrc.StringConst(file, "GroupName")
		line := fset.Position(at).Line
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
