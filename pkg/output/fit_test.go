package output

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestWrap: lines wider than the width wrap at the last space that fits, continuations
// indented under the line's second column or two columns right of its indent; a word wider
// than the line is never cut (it takes a line of its own, past the width); a line written in pieces is wrapped as one; colour takes no room.
func TestWrap(t *testing.T) {
	tests := []struct {
		name   string
		width  int
		writes []string
		want   string
	}{
		{"fits", 20, []string{"short line\n"}, "short line\n"},
		{"at a space", 20, []string{"the quick brown fox jumps over\n"}, "the quick brown fox\n  jumps over\n"},
		{"indented", 20, []string{"    a b c d e f g h i j\n"}, "    a b c d e f g h\n      i j\n"},
		{"two columns", 30, []string{"  crash:b   SIGKILL: its identity lease stays\n"}, "  crash:b   SIGKILL: its\n            identity lease\n            stays\n"},
		{"a long word is whole", 10, []string{"abcdefghijklmnop\n"}, "abcdefghijklmnop\n"},
		{"a long word on a line of its own", 10, []string{"ab abcdefghijklmnop cd\n"}, "ab\nabcdefghijklmnop\n  cd\n"},
		{"trailing spaces take no room", 10, []string{"abcdefghij \n"}, "abcdefghij\n"},
		{"a word wider than the room at the indent starts left", 12, []string{"aa bb cc dd eeeeeeeeeee\n"}, "aa bb cc dd\n eeeeeeeeeee\n"},
		{"in pieces", 20, []string{"the quick ", "brown fox ", "jumps over\n"}, "the quick brown fox\n  jumps over\n"},
		{"colour takes no room", 12, []string{"\x1b[31m404 window\x1b[0m opened\n"}, "\x1b[31m404 window\x1b[0m\n  opened\n"},
		{"wide characters count two", 8, []string{"日本語 日本語\n"}, "日本語\n  日本語\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		w := Wrap(&b, tt.width)
		for _, s := range tt.writes {
			if _, err := w.Write([]byte(s)); err != nil {
				t.Fatal(err)
			}
		}
		if b.String() != tt.want {
			t.Errorf("%s:\n%q\nwant\n%q", tt.name, b.String(), tt.want)
		}
		for _, line := range strings.Split(b.String(), "\n") {
			if DisplayWidth(line) > tt.width && strings.Contains(strings.TrimSpace(line), " ") {
				t.Errorf("%s: %q is wider than %d", tt.name, line, tt.width)
			}
		}
	}
}

// TestTableFitsTerminal: on a terminal a table's free-text columns wrap, the widest first, to
// fit; identifiers are never cut; not on a terminal, or -o wide, every line is whole.
func TestTableFitsTerminal(t *testing.T) {
	headers := []string{"SERVER", "ANSWER", "WHY"}
	rows := [][]string{
		{"kas-a", "served locally", "kas-a serves batch/v1/jobs itself"},
		{"kas-b", "proxied to kas-a", "kas-b does not serve batch/v1 itself; kas-a does"},
	}
	var piped bytes.Buffer
	if err := Write(&piped, tableWriter{headers, rows}, Options{Format: FormatTable}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(piped.String(), "kas-b does not serve batch/v1 itself; kas-a does\n") {
		t.Errorf("piped, a line was cut:\n%s", piped.String())
	}
	for _, width := range []int{40, 60, 80} {
		var b bytes.Buffer
		if err := Write(Terminal(&b, width), tableWriter{headers, rows}, Options{Format: FormatTable}); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(b.String(), "\n") {
			if DisplayWidth(line) > width {
				t.Errorf("%d columns: %q is wider", width, line)
			}
		}
		if got := strings.Join(strings.Fields(b.String()), " "); !strings.Contains(got, "kas-b does not serve batch/v1 itself; kas-a does") &&
			!strings.Contains(got, "kas-b proxied to kas-a kas-b does not serve") {
			t.Errorf("%d columns: words lost:\n%s", width, b.String())
		}
		var wide bytes.Buffer
		if err := Write(Terminal(&wide, width), tableWriter{headers, rows}, Options{Format: FormatWide}); err != nil {
			t.Fatal(err)
		}
		if wide.String() != piped.String() {
			t.Errorf("%d columns, -o wide is fitted:\n%s", width, wide.String())
		}
	}
	var b bytes.Buffer
	if err := Write(Terminal(&b, 60), tableWriter{headers, rows}, Options{Format: FormatTable}); err != nil {
		t.Fatal(err)
	}
	want := "SERVER   ANSWER             WHY\n" +
		"kas-a    served locally     kas-a serves batch/v1/jobs\n" +
		"                            itself\n" +
		"kas-b    proxied to kas-a   kas-b does not serve batch/v1\n" +
		"                            itself; kas-a does\n"
	if b.String() != want {
		t.Errorf("60 columns:\n%s\nwant\n%s", b.String(), want)
	}
}

type tableWriter struct {
	headers []string
	rows    [][]string
}

func (w tableWriter) Object() any { return nil }
func (w tableWriter) WriteText(out io.Writer, o Options) error {
	return Table(out, w.headers, w.rows, o.NoHeaders)
}
