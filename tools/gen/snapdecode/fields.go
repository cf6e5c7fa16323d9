package main

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// field is one JSON key of a struct, as encoding/json maps it.
type field struct {
	name  string
	path  []string // Go field selectors from the struct to the field
	typ   reflect.Type
	depth int
}

// jsonFields returns t's JSON fields in encoding/json's order, embedded structs flattened and
// the shallowest field kept where names collide. What this generator does not model (",string"
// options, embedded pointers, ambiguous collisions) is an error, so it is never guessed at.
func jsonFields(t reflect.Type) ([]field, error) {
	var all []field
	var walk func(t reflect.Type, path []string, depth int) error
	walk = func(t reflect.Type, path []string, depth int) error {
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if !sf.IsExported() && !(sf.Anonymous && sf.Type.Kind() == reflect.Struct) {
				continue
			}
			for _, o := range strings.Split(opts, ",") {
				if o == "string" {
					return fmt.Errorf("field %s: the \",string\" option is not handled", sf.Name)
				}
			}
			p := append(slices.Clone(path), sf.Name)
			if sf.Anonymous && name == "" {
				switch {
				case sf.Type.Kind() == reflect.Struct:
					if err := walk(sf.Type, p, depth+1); err != nil {
						return err
					}
					continue
				case sf.Type.Kind() == reflect.Pointer && sf.Type.Elem().Kind() == reflect.Struct:
					return fmt.Errorf("embedded pointer %s is not handled", sf.Name)
				}
			}
			if !sf.IsExported() {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			all = append(all, field{name: name, path: p, typ: sf.Type, depth: depth})
		}
		return nil
	}
	if err := walk(t, nil, 0); err != nil {
		return nil, err
	}
	var out []field
	for _, f := range all {
		shallowest, count := f.depth, 0
		for _, o := range all {
			if o.name == f.name {
				shallowest = min(shallowest, o.depth)
			}
		}
		for _, o := range all {
			if o.name == f.name && o.depth == shallowest {
				count++
			}
		}
		if f.depth != shallowest {
			continue
		}
		if count > 1 {
			return nil, fmt.Errorf("key %q is ambiguous", f.name)
		}
		out = append(out, f)
	}
	return out, nil
}

// typeExpr is t as Go source in package snapshot, importing its package.
func (g *generator) typeExpr(t reflect.Type) string {
	if t.Name() != "" {
		switch t.PkgPath() {
		case "":
			return t.Name()
		case localPkg:
			return t.Name()
		}
		alias, ok := aliases[t.PkgPath()]
		if !ok {
			panic("snapdecode: no import alias for " + t.PkgPath())
		}
		g.imports[t.PkgPath()] = true
		return alias + "." + t.Name()
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + g.typeExpr(t.Elem())
	case reflect.Slice:
		return "[]" + g.typeExpr(t.Elem())
	case reflect.Map:
		return "map[" + g.typeExpr(t.Key()) + "]" + g.typeExpr(t.Elem())
	}
	return t.String()
}

// fnName names t's decode function: decode<fnName>.
func (g *generator) fnName(t reflect.Type) string {
	if t.Name() != "" {
		if t.PkgPath() == localPkg || t.PkgPath() == "" {
			return capitalize(t.Name())
		}
		return capitalize(aliases[t.PkgPath()]) + t.Name()
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "PtrTo" + g.fnName(t.Elem())
	case reflect.Slice:
		return "SliceOf" + g.fnName(t.Elem())
	case reflect.Map:
		return "MapOf" + g.fnName(t.Key()) + "To" + g.fnName(t.Elem())
	}
	return capitalize(t.String())
}

func capitalize(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
