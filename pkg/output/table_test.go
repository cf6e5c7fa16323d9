package output

import (
	"bytes"
	"testing"
)

// TestTableLayout: kubectl's layout for cells of every kind: columns as wide as their widest
// cell by display width (a wide character counts two, an ANSI colour nothing), a cell of two
// lines as two lines, ragged rows, no trailing blanks.
func TestTableLayout(t *testing.T) {
	tests := []struct {
		name    string
		headers []string
		rows    [][]string
		want    string
	}{
		{"plain", []string{"NAME", "KAS-A"}, [][]string{{"v1/pods", "local"}, {"batch/v1/jobs", ""}},
			"NAME            KAS-A\nv1/pods         local\nbatch/v1/jobs   <none>\n"},
		{"trailing blanks", nil, [][]string{{"a", "bb", "c"}, {"aaaa", "b", ""}},
			"a      bb   c\naaaa   b    <none>\n"},
		{"wide characters", []string{"A", "B"}, [][]string{{"日本", "x"}, {"abcde", "y"}},
			"A       B\n日本    x\nabcde   y\n"},
		{"ANSI colour", nil, [][]string{{"\x1b[31mred\x1b[0m", "x"}, {"green", "y"}},
			"\x1b[31mred\x1b[0m     x\ngreen   y\n"},
		{"a newline is visible: a value cannot add a line", nil, [][]string{{"a\nbbb", "x"}, {"c", "y"}},
			"a\\x0abbb   x\nc          y\n"},
		{"an escape sequence is visible", nil, [][]string{{"\x1b]0;pwned\x07\x1b[2J", "x"}},
			"\\x1b]0;pwned\\x07\\x1b[2J   x\n"},
		{"ragged", []string{"A", "B", "C"}, [][]string{{"a"}, {"a", "b", "c"}},
			"A   B   C\na\na   b   c\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := Table(&b, tt.headers, tt.rows, tt.headers == nil); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want {
			t.Errorf("%s:\n%q\nwant\n%q", tt.name, b.String(), tt.want)
		}
	}
}
