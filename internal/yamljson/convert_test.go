package yamljson

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// sameMeaning reports whether Convert's JSON and sigs.k8s.io/yaml's conversion of the same
// YAML decode to equal values: integers compared as written, numbers with a fraction or an
// exponent as the float64 they denote (sigs.k8s.io/yaml writes 1.50 as 1.5).
func sameMeaning(t *testing.T, got, want []byte) bool {
	t.Helper()
	decode := func(b []byte) any {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("decoding %q: %v", b, err)
		}
		return normalizeNumbers(v)
	}
	return reflect.DeepEqual(decode(got), decode(want))
}

func normalizeNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if !strings.ContainsAny(string(v), ".eE") && len(v) > 15 {
			return string(v) // beyond float64's exact integers: compared as written
		}
		f, err := v.Float64()
		if err != nil {
			return "bad number " + string(v)
		}
		return f
	case map[string]any:
		for k, e := range v {
			v[k] = normalizeNumbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = normalizeNumbers(e)
		}
	}
	return v
}

func TestConvert(t *testing.T) {
	cases := []struct {
		name, in string
		want     string // "" means declined
	}{
		{"mapping", "a: b\nc: d\n", `{"a":"b","c":"d"}`},
		{"nested", "a:\n  b: c\n  d:\n    e: f\ng: h\n", `{"a":{"b":"c","d":{"e":"f"}},"g":"h"}`},
		{"indentless sequence", "a:\n- x\n- w\nb: z\n", `{"a":["x","w"],"b":"z"}`},
		{"indented sequence", "a:\n  - x\n  - w\n", `{"a":["x","w"]}`},
		{"sequence of mappings", "s:\n- a: 1\n  b: two\n- a: 3\n", `{"s":[{"a":1,"b":"two"},{"a":3}]}`},
		{"mapping item with sequence", "s:\n- k:\n  - v\n  l: m\n", `{"s":[{"k":["v"],"l":"m"}]}`},
		{"item mapping with null then next item", "s:\n- k:\n- x\n", `{"s":[{"k":null},"x"]}`},
		{"top-level sequence", "- a\n- b\n", `["a","b"]`},
		{"empty collections and null", "a: {}\nb: []\nc: null\nd:\ne: ~\n", `{"a":{},"b":[],"c":null,"d":null,"e":null}`},
		{"booleans", "a: true\nb: false\n", `{"a":true,"b":false}`},
		{"integers", "a: 0\nb: -12\nc: 443\n", `{"a":0,"b":-12,"c":443}`},
		{"url and colon", "u: https://127.0.0.1:6443/apis\n", `{"u":"https://127.0.0.1:6443/apis"}`},
		{"single-quoted", "e: '\"C1F''x\"'\n", `{"e":"\"C1F'x\""}`},
		{"double-quoted", `v: "1.37"` + "\n" + `w: "a\"b\\c\n"` + "\n", `{"v":"1.37","w":"a\"b\\c\n"}`},
		{"quoted key", "\"1.36\": x\n'y': z\n", `{"1.36":"x","y":"z"}`},
		{"comments and blank lines", "# top\na: b\n\n  # indented\nc: d\n", `{"a":"b","c":"d"}`},
		{"backslash in plain", `p: a\b` + "\n", `{"p":"a\\b"}`},
		{"no final newline", "a: b", `{"a":"b"}`},
		{"folded plain", "a: some long\n  text\nb: c\n", `{"a":"some long text","b":"c"}`},
		{"folded single-quoted", "- 'it''s a long\n  one: really'\n", `["it's a long one: really"]`},
		{"folded double-quoted", "a: \"x\n  \\ y\"\n", `{"a":"x  y"}`},
		{"escaped break", "a: \"x\\\n  y\"\n", `{"a":"xy"}`},
		{"host and port", "a: 127.0.0.1:38225\nb: 10.0.0.1\nc: 1:20\n", `{"a":"127.0.0.1:38225","b":"10.0.0.1","c":"1:20"}`},

		{"float", "a: 1.37\nb: -0.5e-3\nc: 0.9999843\nd: 1.50\n", `{"a":1.37,"b":-0.5e-3,"c":0.9999843,"d":1.50}`},
		{"float without digits after the point", "a: 1.\n", ""},
		{"float with a plus sign", "a: +1.5\n", ""},
		{"float leading point", "a: .5\n", ""},
		{"float leading zeros", "a: 01.5\n", ""},
		{"octal", "a: 010\n", ""},
		{"yes", "a: yes\n", ""},
		{"True", "a: True\n", ""},
		{"off key", "off: a\n", ""},
		{"timestamp", "a: 2026-11-23\n", ""},
		{"inf", "a: .inf\n", ""},
		{"block scalar", "a: |\n  x\n", ""},
		{"folded plain then blank line", "a: some long\n\n  text\n", ""},
		{"plain then an indented comment", "a: some long\n  # text\n", `{"a":"some long"}`},
		{"folded plain with a colon", "a: some long\n  text: x\n", ""},
		{"folded plain with a quote and a dash", "a: some long\n  \"x\" y\n  - z\n", `{"a":"some long \"x\" y - z"}`},
		{"quoted closed then more", "a: 'x'\n  y\n", ""},
		{"quoted never closed", "a: 'x\n  y\n", ""},
		{"flow mapping", "a: {b: c}\n", ""},
		{"anchor", "a: &x b\n", ""},
		{"alias", "a: *x\n", ""},
		{"tag", "a: !!str 1\n", ""},
		{"document marker", "---\na: b\n", ""},
		{"tab", "a:\tb\n", ""},
		{"crlf", "a: b\r\n", ""},
		{"non-ascii", "a: \"ETag 4909…\"\nb: café\nc: 'ü'\n", `{"a":"ETag 4909…","b":"café","c":"ü"}`},
		{"line separator", "a: \"x\u2028y\"\n", ""},
		{"next line", "a: x\u0085y\n", ""},
		{"invalid utf-8", "a: \xff\n", ""},
		{"byte order mark", "\ufeffa: b\n", ""},
		{"comment after value", "a: b # c\n", ""},
		{"trailing space", "a: b \n", ""},
		{"two spaces after colon", "a:  b\n", ""},
		{"misaligned", "a:\n    b: c\n  d: e\n", ""},
		{"over-indented after scalar", "a: b\n  c: d\n", ""},
		{"\\x escape", `a: "\x41"` + "\n", ""},
		{"\\u escape", `a: "\u00e9"` + "\n", ""},
		{"nested inline sequence", "- - a\n", ""},
		{"bare dash", "-\n  a: b\n", ""},
		{"merge key", "<<: a\n", ""},
		{"leading zero negative", "a: -0\n", ""},
		{"hex", "a: 0x1F\n", ""},
		{"exponent", "a: 1e5\n", ""},
		{"underscore number", "a: 1_000\n", ""},
		{"date-time", "a: 2001-12-14t21:59:43.10-05:00\n", ""},
		{"address then colon", "a: 1.2.3.4:\n", ""},
		{"indented document", "  a: b\n", ""},
		{"empty", "", ""},
		{"only a comment", "# x\n", ""},
		{"plain scalar then key at top", "a\nb: c\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := Convert([]byte(c.in))
			if c.want == "" {
				if ok {
					t.Fatalf("Convert(%q) = %s, want declined", c.in, got)
				}
				return
			}
			if !ok {
				t.Fatalf("Convert(%q) declined, want %s", c.in, c.want)
			}
			if string(got) != c.want {
				t.Fatalf("Convert(%q) = %s, want %s", c.in, got, c.want)
			}
			ref, err := yaml.YAMLToJSON([]byte(c.in))
			if err != nil {
				t.Fatalf("sigs.k8s.io/yaml rejects %q: %v", c.in, err)
			}
			if !sameMeaning(t, got, ref) {
				t.Fatalf("Convert(%q) = %s, sigs.k8s.io/yaml says %s", c.in, got, ref)
			}
		})
	}
}

// TestConvertReadsWhatMvpctlWrites: the shipped examples (written by mvpctl) are accepted and
// mean what sigs.k8s.io/yaml says; the hand-written fixtures, where accepted, mean the same too.
// pkg/snapshot's TestYAMLFastPath checks every snapshot mvpctl marshals.
func TestConvertReadsWhatMvpctlWrites(t *testing.T) {
	examples, err := filepath.Glob("../../examples/*.yaml")
	if err != nil || len(examples) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	fixtures, _ := filepath.Glob("../../cmd/mvpctl/testdata/snapshots/*.yaml")
	for i, f := range append(examples, fixtures...) {
		mustAccept := i < len(examples)
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := Convert(data)
		ref, refErr := yaml.YAMLToJSON(data)
		switch {
		case !ok && mustAccept:
			t.Errorf("%s: declined", f)
		case ok && refErr != nil:
			t.Errorf("%s: accepted, but sigs.k8s.io/yaml rejects it: %v", f, refErr)
		case ok && !sameMeaning(t, got, ref):
			t.Errorf("%s: Convert and sigs.k8s.io/yaml disagree", f)
		}
	}
}

// FuzzConvert: whatever Convert accepts, sigs.k8s.io/yaml reads to the same value.
func FuzzConvert(f *testing.F) {
	for _, s := range []string{
		"a: b\n", "a:\n- x\n- y: 1\n  z: '2'\nb: \"c\\n\"\n", "- a\n- {}\n- []\n", "k: -3\nl: null\n",
		"x:\n  y:\n  - p: q\n", "'a''b': \"c\\\\\"\n", "u: https://h:1/x#y\n",
	} {
		f.Add([]byte(s))
	}
	if data, err := os.ReadFile("../../cmd/mvpctl/testdata/snapshots/skew.yaml"); err == nil && len(data) < 1<<16 {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, ok := Convert(in)
		if !ok {
			return
		}
		ref, err := yaml.YAMLToJSON(in)
		if err != nil {
			t.Fatalf("Convert accepted %q (%s), sigs.k8s.io/yaml rejects it: %v", in, got, err)
		}
		if !sameMeaning(t, got, ref) {
			t.Fatalf("Convert(%q) = %s, sigs.k8s.io/yaml says %s", in, got, ref)
		}
	})
}

// BenchmarkConvertExample converts the README's example snapshot; its baseline reads the
// same bytes once (counting lines, as split must), so the ratio between the two is what
// converting costs beyond touching the input.
func BenchmarkConvertExample(b *testing.B) {
	data, err := os.ReadFile("../../examples/skew.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("baseline-count-lines", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			bytes.Count(data, []byte{'\n'})
		}
	})
	b.Run("convert", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := Convert(data); !ok {
				b.Fatal("declined")
			}
		}
	})
}
