package gosrc

import (
	"go/parser"
	"go/token"
	"testing"
)

func TestStringConst(t *testing.T) {
	const src = `package v1

const GroupName = "batch"

const (
	Version, Other = "v1", 2
	Typed string = ` + "`raw`" + `
	NotString = 3
)

var Var = "a var"
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "register.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, want string
		line       int
		ok         bool
	}{
		{"GroupName", "batch", 3, true},
		{"Version", "v1", 6, true},
		{"Typed", "raw", 7, true},
		{"Other", "", 0, false},     // not a string literal
		{"NotString", "", 0, false}, // not a string literal
		{"Var", "", 0, false},       // a variable, not a constant
		{"Missing", "", 0, false},
	} {
		got, at, ok := StringConst(f, tt.name)
		line := 0
		if ok {
			line = fset.Position(at).Line
		}
		if got != tt.want || ok != tt.ok || line != tt.line {
			t.Errorf("%s: got %q line %d ok %v, want %q line %d ok %v", tt.name, got, line, ok, tt.want, tt.line, tt.ok)
		}
	}
}
