package output

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestGuard: what passes the guard holds no control character but newline and tab; the
// colour codes Paint writes pass only when colour is on.
func TestGuard(t *testing.T) {
	red := Options{Format: FormatTable, Color: true}.Paint("404", Failure)
	in := "ok\ttab\n" + red + " \x1b]0;pwned\x07\x1b[2J\x1b[31mforged\x1b[0m\n"
	for _, tc := range []struct {
		color bool
		want  string
	}{
		{false, "ok\ttab\n\\x1b[31m404\\x1b[0m \\x1b]0;pwned\\x07\\x1b[2J\\x1b[31mforged\\x1b[0m\n"},
		{true, "ok\ttab\n\x1b[31m404\x1b[0m \\x1b]0;pwned\\x07\\x1b[2J\x1b[31mforged\x1b[0m\n"},
	} {
		var b bytes.Buffer
		g := Guard(&b, func() bool { return tc.color })
		if n, err := io.WriteString(g, in); err != nil || n != len(in) {
			t.Fatalf("write: %d, %v", n, err)
		}
		if b.String() != tc.want {
			t.Errorf("color %v:\n%q\nwant\n%q", tc.color, b.String(), tc.want)
		}
		if Guard(g, nil) != g {
			t.Error("a guard wrapped twice")
		}
	}
}

func TestMarkdownHTML(t *testing.T) {
	for in, want := range map[string]string{
		"a<br>b <details><summary>x</summary></details>": "a&lt;br>b <details><summary>x</summary></details>",
		"<img src=x onerror=alert(1)>":                   "&lt;img src=x onerror=alert(1)>",
		"kas-b</td><script>":                             "kas-b&lt;/td>&lt;script>",
		"<br onload=x>":                                  "&lt;br onload=x>",
		"<none> \x1b[2J":                                 `&lt;none> \x1b[2J`,
		"> a quote, a --> arrow, <!-- a comment -->":     "> a quote, a --> arrow, &lt;!-- a comment -->",
		"![x](https://t.example/p.gif) [y](https://x)":   `![x]\(https://t.example/p.gif) [y]\(https://x)`,
	} {
		if got := MarkdownHTML(in); got != want {
			t.Errorf("MarkdownHTML(%q) = %q, want %q", in, got, want)
		}
	}
	var b strings.Builder
	_ = MarkdownTable(&b, []string{"A", "B"}, [][]string{{"x|y\nz", "<img src=x>\x07"}, {"a<br>b", "c<br/>d"}})
	if want := "| A | B |\n| --- | --- |\n| x\\|y\\x0az | &lt;img src=x>\\x07 |\n| a&lt;br>b | c&lt;br/>d |\n"; b.String() != want {
		t.Errorf("MarkdownTable:\n%q\nwant\n%q", b.String(), want)
	}
}

func TestJUnitText(t *testing.T) {
	var b strings.Builder
	if err := JUnit(&b, "s", []JUnitCase{{Name: "MVP031:kas-b</td><script>", ClassName: "c", FailureType: "warning",
		Message: "clients: \x1b]0;pwned\x07", Detail: "line one\nline two \x1b[2J"}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07") || strings.Contains(out, "<script") || !strings.Contains(out, `\x1b]0;pwned\x07`) || !strings.Contains(out, "line one&#xA;line two \\x1b[2J") {
		t.Errorf("junit:\n%s", out)
	}
}

func TestCellsOfEveryTableFormat(t *testing.T) {
	rows := [][]string{{"kas-a\x1b[2J", "a\nb"}}
	var csv, names bytes.Buffer
	_ = writeCSV(&csv, []string{"A", "B"}, rows, false)
	_ = writeNames(&names, []string{"kas-a\x1b[2J\nforged"})
	if want := "A,B\nkas-a\\x1b[2J,a\\x0ab\n"; csv.String() != want {
		t.Errorf("csv %q, want %q", csv.String(), want)
	}
	if want := "kas-a\\x1b[2J\\x0aforged\n"; names.String() != want {
		t.Errorf("names %q, want %q", names.String(), want)
	}
	if got := Cell("\x1b[31m404\x1b[2J\x1b[0m"); got != "\x1b[31m404\\x1b[2J\x1b[0m" {
		t.Errorf("Cell keeps Paint's colour and escapes the rest: %q", got)
	}
}

// BenchmarkGuard: the guard's cost on clean output, the common case (a routes table: ASCII
// with arrows), per byte written.
func BenchmarkGuard(b *testing.B) {
	line := []byte("batch/v1/jobs                                 local        proxy→kas-a   404 (no peer serves it)\n")
	g := Guard(io.Discard, nil)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		g.Write(line)
	}
}

type named string

type stringer struct{}

func (stringer) String() string { return "s\u2028t" }

// TestSprintfOneLinePerValue: each value is made one line where it is placed — strings,
// errors, Stringers and typed strings, Paint's colour kept — and the format's own newlines stay.
func TestSprintfOneLinePerValue(t *testing.T) {
	for _, tc := range []struct {
		format string
		args   []any
		want   string
	}{
		{"%s: %s\n", []any{"kas-a", "FAILED\nFAKE-LINE: ok"}, "kas-a: FAILED\\x0aFAKE-LINE: ok\n"},
		{"%v|%s|%s|%d\n", []any{errors.New("a\r\nb"), stringer{}, named("gad\u200dgets"), 7}, "a\\x0d\\x0ab|s\\u2028t|gad\\u200dgets|7\n"},
		{"%s\n", []any{Options{Color: true}.Paint("404\n", Failure)}, Options{Color: true}.Paint(`404\x0a`, Failure) + "\n"},
		{"%-6s|\n", []any{"a\tb"}, "a\\x09b|\n"},
	} {
		if got := Sprintf(tc.format, tc.args...); got != tc.want {
			t.Errorf("Sprintf(%q) = %q, want %q", tc.format, got, tc.want)
		}
		var b strings.Builder
		if _, err := Fprintf(&b, tc.format, tc.args...); err != nil || b.String() != tc.want {
			t.Errorf("Fprintf(%q) = %q, %v", tc.format, b.String(), err)
		}
	}
}
