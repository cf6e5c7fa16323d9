// Package gosrc reads facts from Go source files (go/ast) without building them: what the
// profile recorder and the lifecycle generator take from Kubernetes' published modules.
package gosrc

import (
	"go/ast"
	"go/token"
	"strconv"
)

// StringConst is the value of the constant name that file declares with a string literal,
// and where that literal is; ok is false when file declares no such constant.
func StringConst(file *ast.File, name string) (value string, at token.Pos, ok bool) {
	for _, decl := range file.Decls {
		gd, isGen := decl.(*ast.GenDecl)
		if !isGen || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if n.Name != name || i >= len(vs.Values) {
					continue
				}
				if lit, isLit := vs.Values[i].(*ast.BasicLit); isLit && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil {
						return s, lit.Pos(), true
					}
				}
			}
		}
	}
	return "", token.NoPos, false
}
