package print

import (
	"bytes"
	"strings"
	"testing"
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

func TestObject(t *testing.T) {
	v := map[string]any{"kind": "X", "a": "<b>"}
	var b bytes.Buffer
	if err := Object(&b, v, FormatJSON); err != nil || !strings.Contains(b.String(), `"a": "<b>"`) {
		t.Errorf("json: %q %v", b.String(), err)
	}
	b.Reset()
	if err := Object(&b, v, FormatYAML); err != nil || b.String() != "a: <b>\nkind: X\n" {
		t.Errorf("yaml: %q %v", b.String(), err)
	}
	if err := Object(&b, v, "table"); err == nil {
		t.Error("table is not structured")
	}
	if err := CheckFormat("xml", FormatJSON, FormatYAML); err == nil || !strings.Contains(err.Error(), "json|yaml") {
		t.Errorf("CheckFormat: %v", err)
	}
	if Header("kas a_b") != "KAS-A-B" {
		t.Error(Header("kas a_b"))
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
	want := "| A | B |\n| --- | --- |\n| x\\|y | line<br>break |\n"
	if b.String() != want {
		t.Errorf("got %q want %q", b.String(), want)
	}
}
