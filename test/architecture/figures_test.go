package architecture

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// sizeFigures are the sizes docs/architecture.md states of its speed mechanisms ("What the
// code keeps for speed"), each a pattern of the document whose first group is the figure and
// the files it counts the lines of (globs under the module, test files left out).
var sizeFigures = []struct {
	pattern string
	globs   []string
	leave   string // a file name the globs match that the figure leaves out
}{
	{`The generated JSON decoder\*\* \(([0-9,]+) generated lines`, []string{"pkg/snapshot/fastdecode_gen.go"}, ""},
	{`([0-9,]+) hand-written in the other\s+` + "`fastdecode\\*\\.go`", []string{"pkg/snapshot/fastdecode*.go"}, "fastdecode_gen.go"},
	{`the generator\s+([0-9,]+)[;)]`, []string{"tools/gen/snapdecode/*.go"}, ""},
	{"`internal/yamljson`\\*\\* \\(([0-9,]+) lines\\)", []string{"internal/yamljson/*.go"}, ""},
}

// TestSizeFigures: the sizes docs/architecture.md states are the code's, within a tenth (an
// edit of a few lines needs no change of the document; a stale figure fails).
func TestSizeFigures(t *testing.T) {
	root := moduleRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range sizeFigures {
		m := regexp.MustCompile(f.pattern).FindSubmatch(doc)
		if m == nil {
			t.Errorf("docs/architecture.md states no figure matching %q", f.pattern)
			continue
		}
		stated, _ := strconv.Atoi(strings.ReplaceAll(string(m[1]), ",", ""))
		got := 0
		for _, g := range f.globs {
			files, _ := filepath.Glob(filepath.Join(root, g))
			for _, path := range files {
				if strings.HasSuffix(path, "_test.go") || (f.leave != "" && filepath.Base(path) == f.leave) {
					continue
				}
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				got += bytes.Count(b, []byte("\n"))
			}
		}
		if d := got - stated; d*10 > stated || -d*10 > stated {
			t.Errorf("docs/architecture.md states %d lines (%s), the code has %d (%s): correct the figure", stated, m[0], got, strings.Join(f.globs, ", "))
		}
	}
}
