package main

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestGeneratedFileIsCurrent fails when pkg/snapshot/fastdecode_gen.go is not what this
// generator writes for today's types: run go generate ./pkg/snapshot.
func TestGeneratedFileIsCurrent(t *testing.T) {
	want, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../../pkg/snapshot/fastdecode_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("pkg/snapshot/fastdecode_gen.go is stale: run go generate ./pkg/snapshot")
	}
}

// TestJSONFields: embedded structs are flattened, the shallowest of two same-named fields
// wins, tags rename and "-" drops, as in encoding/json; what is not modelled is an error.
func TestJSONFields(t *testing.T) {
	type inner struct {
		A string `json:"a"`
		B string `json:"b"`
	}
	type outer struct {
		inner `json:""`
		B     string `json:"b"`
		C     string
		D     string `json:"-"`
		e     string
	}
	fields, err := jsonFields(reflect.TypeFor[outer]())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fields {
		got = append(got, f.name+"="+strings.Join(f.path, "."))
	}
	want := []string{"a=inner.A", "b=B", "C=C"}
	if len(got) != len(want) {
		t.Fatalf("fields %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("fields %v, want %v", got, want)
		}
	}
	_ = outer{}.e
	type stringOpt struct {
		N int `json:"n,string"`
	}
	if _, err := jsonFields(reflect.TypeFor[stringOpt]()); err == nil {
		t.Error("a \",string\" option was not an error")
	}
	type x struct{ A string }
	type y struct{ A string }
	type ambiguous struct {
		x
		y
	}
	if _, err := jsonFields(reflect.TypeFor[ambiguous]()); err == nil {
		t.Error("an ambiguous key was not an error")
	}
}
