package output

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// tableResult has a table and names.
type tableResult struct{}

func (tableResult) WriteText(io.Writer, Options) error { return nil }
func (tableResult) Object() any {
	return map[string]any{"kind": "T", "rows": []any{map[string]any{"name": "batch/v1/jobs", "n": 1}, map[string]any{"name": "v1/pods", "n": 2}}}
}
func (tableResult) Names() []string { return []string{"batch/v1/jobs", "v1/pods"} }
func (tableResult) Table(o Options) ([]string, [][]string) {
	h := []string{"NAME", "KAS-A"}
	rows := [][]string{{"batch/v1/jobs", "proxy→kas-b"}, {"v1/pods", ""}, {"a,b", `say "x"`}}
	if o.Wide() {
		h = append(h, "MORE")
		for i := range rows {
			rows[i] = append(rows[i], "m")
		}
	}
	return h, rows
}

func TestTableFormats(t *testing.T) {
	for _, tc := range []struct {
		name    string
		w       Writer
		o       Options
		want    string
		wantErr string
	}{
		{"name", tableResult{}, Options{Format: FormatName}, "batch/v1/jobs\nv1/pods\n", ""},
		{"csv", tableResult{}, Options{Format: FormatCSV}, "NAME,KAS-A\nbatch/v1/jobs,proxy→kas-b\nv1/pods,\n\"a,b\",\"say \"\"x\"\"\"\n", ""},
		{"csv without headers", tableResult{}, Options{Format: FormatCSV, NoHeaders: true}, "batch/v1/jobs,proxy→kas-b\nv1/pods,\n\"a,b\",\"say \"\"x\"\"\"\n", ""},
		{"jsonpath", tableResult{}, Options{Format: FormatJSONPath, JSONPath: "{.rows[*].name}"}, "batch/v1/jobs v1/pods", ""},
		{"jsonpath range", tableResult{}, Options{Format: FormatJSONPath, JSONPath: `{range .rows[*]}{.name}={.n}{"\n"}{end}`}, "batch/v1/jobs=1\nv1/pods=2\n", ""},
		{"jsonpath relaxed", tableResult{}, Options{Format: FormatJSONPath, JSONPath: ".kind"}, "T", ""},
		{"jsonpath missing field", tableResult{}, Options{Format: FormatJSONPath, JSONPath: "{.nope}"}, "", "nope is not found"},
		{"name not implemented", rawResult{}, Options{Format: FormatName}, "", "cannot be printed as name"},
		{"csv not implemented", rawResult{}, Options{Format: FormatCSV}, "", "cannot be printed as csv"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			err := Write(&b, tc.w, tc.o)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || b.String() != tc.want {
				t.Errorf("got %q, %v; want %q", b.String(), err, tc.want)
			}
		})
	}
}

func TestFlagsJSONPathAndAliases(t *testing.T) {
	parse := func(f *Flags, args ...string) (Options, error) {
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		f.AddFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return f.Options("mvpctl x")
	}
	table := func() *Flags { return NewFlags(append([]Format{FormatTable}, TableFormats...)...) }
	if o, err := parse(table(), "-o", "jsonpath={.rows[*].name}", "--no-headers"); err != nil || o != (Options{Format: FormatJSONPath, JSONPath: "{.rows[*].name}", NoHeaders: true}) {
		t.Errorf("jsonpath: %+v %v", o, err)
	}
	if _, err := parse(table(), "-o", "jsonpath={.rows[*"); err == nil || !strings.Contains(err.Error(), "-o jsonpath={.rows[*: ") {
		t.Errorf("bad template: %v", err)
	}
	if _, err := parse(table(), "-o", "jsonpath="); err == nil || !strings.Contains(err.Error(), "empty template") {
		t.Errorf("empty template: %v", err)
	}
	if _, err := parse(table(), "-o", "jsonpath"); err == nil || !strings.Contains(err.Error(), "want one of table|wide|name|jsonpath=TEMPLATE|csv") {
		t.Errorf("jsonpath without a template: %v", err)
	}
	if _, err := parse(NewFlags(FormatTable, FormatJSON), "-o", "jsonpath={.a}"); err == nil {
		t.Error("jsonpath accepted by a command without it")
	}
	stream := func() *Flags { return NewFlags(FormatText, FormatJSON).Alias("table", FormatText) }
	if o, err := parse(stream(), "-o", "table"); err != nil || o.Format != FormatText {
		t.Errorf("alias: %+v %v", o, err)
	}
	if got := strings.Join(stream().Formats(), "|"); got != "text|json|table" {
		t.Errorf("Formats() = %s", got)
	}
}

// TestFlagsNote: a note is part of the help of -o, after the formats; it changes no format.
func TestFlagsNote(t *testing.T) {
	f := NewFlags(FormatTable, FormatWide).Note("wide: no more columns")
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	f.AddFlags(fs)
	if got := fs.Lookup("output").Usage; got != "output format: table|wide; wide: no more columns" {
		t.Errorf("usage %q", got)
	}
	if err := fs.Parse([]string{"-o", "wide"}); err != nil {
		t.Fatal(err)
	}
	if o, err := f.Options("mvpctl x"); err != nil || o.Format != FormatWide {
		t.Errorf("-o wide with a note: %+v %v", o, err)
	}
}

func TestPaint(t *testing.T) {
	on := Options{Format: FormatTable, Color: true}
	if got := on.Paint("404", Failure); got != "\x1b[31m404\x1b[0m" {
		t.Errorf("failure: %q", got)
	}
	if got := on.Paint("proxy→a", Notice); got != "\x1b[36mproxy→a\x1b[0m" {
		t.Errorf("notice: %q", got)
	}
	for _, o := range []Options{{Format: FormatTable}, {Format: FormatCSV, Color: true}, {Format: FormatJSON, Color: true}, {Format: FormatName, Color: true}} {
		if got := o.Paint("404", Failure); got != "404" {
			t.Errorf("%+v: %q", o, got)
		}
	}
	if got := on.Paint("local", Plain); got != "local" {
		t.Errorf("plain: %q", got)
	}
	// Widths: a coloured cell lines up as a plain one.
	var plain, coloured bytes.Buffer
	_ = Table(&plain, []string{"A", "B"}, [][]string{{"404", "x"}, {"local", "y"}}, false)
	_ = Table(&coloured, []string{"A", "B"}, [][]string{{on.Paint("404", Failure), "x"}, {"local", "y"}}, false)
	if strings.ReplaceAll(strings.ReplaceAll(coloured.String(), "\x1b[31m", ""), "\x1b[0m", "") != plain.String() {
		t.Errorf("colour changes the layout:\n%s\n%s", coloured.String(), plain.String())
	}
}
