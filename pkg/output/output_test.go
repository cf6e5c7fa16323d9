package output

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestTable(t *testing.T) {
	var b bytes.Buffer
	err := Table(&b, []string{"NAME", "KAS-A", "KAS-B"}, [][]string{
		{"batch/v1/jobs", "local", "proxy→kas-a"},
		{"v1/pods", "", "503"},
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := "NAME            KAS-A    KAS-B\n" +
		"batch/v1/jobs   local    proxy→kas-a\n" +
		"v1/pods         <none>   503\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	if err := Table(&b, []string{"NAME"}, [][]string{{"x"}}, true); err != nil || b.String() != "x\n" {
		t.Errorf("no headers: %q %v", b.String(), err)
	}
}

// fakeResult prints what it was asked to print, so Write's dispatch can be seen.
type fakeResult struct{ raw bool }

func (fakeResult) WriteText(out io.Writer, o Options) error {
	_, err := fmt.Fprintf(out, "text %s noHeaders=%t wide=%t\n", o.Format, o.NoHeaders, o.Wide())
	return err
}
func (fakeResult) Object() any { return map[string]any{"kind": "X", "a": "<b>"} }
func (fakeResult) WriteMarkdown(out io.Writer) error {
	_, err := io.WriteString(out, "markdown\n")
	return err
}

func (fakeResult) WriteMermaid(out io.Writer) error {
	_, err := io.WriteString(out, "flowchart LR\n")
	return err
}
func (fakeResult) WriteDOT(out io.Writer) error {
	_, err := io.WriteString(out, "digraph {}\n")
	return err
}

// rawResult writes its own JSON and YAML and has no markdown or JUnit form.
type rawResult struct{}

func (rawResult) WriteText(io.Writer, Options) error { return nil }
func (rawResult) Object() any                        { return "unused" }
func (rawResult) WriteJSON(out io.Writer) error {
	_, err := io.WriteString(out, `{"raw":true}`)
	return err
}
func (rawResult) WriteYAML(out io.Writer) error {
	_, err := io.WriteString(out, "raw: true\n")
	return err
}

func TestWrite(t *testing.T) {
	tests := []struct {
		name    string
		w       Writer
		o       Options
		want    string
		wantErr string
	}{
		{"table", fakeResult{}, Options{Format: FormatTable}, "text table noHeaders=false wide=false\n", ""},
		{"wide without headers", fakeResult{}, Options{Format: FormatWide, NoHeaders: true}, "text wide noHeaders=true wide=true\n", ""},
		{"text", fakeResult{}, Options{Format: FormatText}, "text text noHeaders=false wide=false\n", ""},
		{"json keeps <>", fakeResult{}, Options{Format: FormatJSON}, "{\n  \"a\": \"<b>\",\n  \"kind\": \"X\"\n}\n", ""},
		{"yaml", fakeResult{}, Options{Format: FormatYAML}, "a: <b>\nkind: X\n", ""},
		{"markdown", fakeResult{}, Options{Format: FormatMarkdown}, "markdown\n", ""},
		{"junit not implemented", fakeResult{}, Options{Format: FormatJUnit}, "", "cannot be printed as junit"},
		{"raw json", rawResult{}, Options{Format: FormatJSON}, `{"raw":true}`, ""},
		{"raw yaml", rawResult{}, Options{Format: FormatYAML}, "raw: true\n", ""},
		{"markdown not implemented", rawResult{}, Options{Format: FormatMarkdown}, "", "cannot be printed as markdown"},
		{"mermaid", fakeResult{}, Options{Format: FormatMermaid}, "flowchart LR\n", ""},
		{"dot", fakeResult{}, Options{Format: FormatDOT}, "digraph {}\n", ""},
		{"mermaid not implemented", rawResult{}, Options{Format: FormatMermaid}, "", "cannot be printed as mermaid"},
		{"dot not implemented", rawResult{}, Options{Format: FormatDOT}, "", "cannot be printed as dot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			err := Write(&b, tt.w, tt.o)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || b.String() != tt.want {
				t.Errorf("got %q, %v; want %q", b.String(), err, tt.want)
			}
		})
	}
}

func TestFlags(t *testing.T) {
	tests := []struct {
		name    string
		formats []Format
		args    []string
		want    Options
		wantErr string
	}{
		{"default is the first format", []Format{FormatTable, FormatJSON}, nil, Options{Format: FormatTable}, ""},
		{"no headers", []Format{FormatTable, FormatWide}, []string{"-o", "wide", "--no-headers"}, Options{Format: FormatWide, NoHeaders: true}, ""},
		{"long flag", []Format{FormatText, FormatYAML}, []string{"--output=yaml"}, Options{Format: FormatYAML}, ""},
		{"unsupported", []Format{FormatTable, FormatWide, FormatJSON, FormatYAML}, []string{"-o", "xml"}, Options{},
			`unknown output format "xml" for "mvpctl x": want one of table|wide|json|yaml`},
		{"known elsewhere, not here", []Format{FormatText, FormatJSON, FormatYAML}, []string{"-o", "table"}, Options{},
			`unknown output format "table" for "mvpctl x": want one of text|json|yaml`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFlags(tt.formats...)
			fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
			f.AddFlags(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			got, err := f.Options("mvpctl x")
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestFlagsFormats(t *testing.T) {
	f := NewFlags(FormatTable, FormatWide, FormatJSON)
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	f.AddFlags(fs)
	want := []string{"table", "wide", "json"}
	if got := f.Formats(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Formats() = %v, want %v", got, want)
	}
	if got := fs.Lookup("output").Annotations[FormatsAnnotation]; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("annotation %s = %v, want %v", FormatsAnnotation, got, want)
	}
}

func TestHeader(t *testing.T) {
	if got := Header("kas a_b"); got != "KAS-A-B" {
		t.Errorf("Header(%q) = %q", "kas a_b", got)
	}
}

func TestJUnit(t *testing.T) {
	var b bytes.Buffer
	err := JUnit(&b, "mvpctl preflight", []JUnitCase{
		{Name: "MVP001 kas-a", ClassName: "apiserver-reachable"},
		{Name: "MVP010 kas-b v1/pods", ClassName: "gvr", FailureType: "blocking", Message: "404 <x> & y", Detail: "evidence"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<testsuites name="mvpctl preflight" tests="2" failures="1">`, `<failure type="blocking" message="404 &lt;x&gt; &amp; y">evidence</failure>`, `<testcase name="MVP001 kas-a" classname="apiserver-reachable"></testcase>`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %s in\n%s", want, b.String())
		}
	}
}

func TestMarkdownTable(t *testing.T) {
	var b bytes.Buffer
	if err := MarkdownTable(&b, []string{"A", "B"}, [][]string{{"x|y", "line\nbreak"}}); err != nil {
		t.Fatal(err)
	}
	want := "| A | B |\n| --- | --- |\n| x\\|y | line\\x0abreak |\n"
	if b.String() != want {
		t.Errorf("got %q want %q", b.String(), want)
	}
}
