package docexamples

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// workHistory finds text that says how the work was done rather than what the product does:
// numbered work steps, tracker issue numbers and the names of work branches (the examples
// in TestWorkHistoryPattern are built from pieces, so that this file does not match).
// Upstream references are written as links or owner/repo#N, which this does not match.
var workHistory = regexp.MustCompile(`(?i)\bstop [0-9]+|\bissue #?[0-9]+|(^|[^A-Za-z0-9.\-])[hr]-(gate|first|crash|138|exporter|escape|process|structure|installer|profiles|apisvc|kubeadm|output|formats)\b`)

// TestRepositorySpeaksOfTheProduct: no file of the repository says how it was made.
func TestRepositorySpeaksOfTheProduct(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		switch {
		case d.Name() == ".git" && d.IsDir(), d.IsDir() && (rel == "bin" || rel == "dist"):
			return filepath.SkipDir
		case d.IsDir(), d.Name() == ".git": // a worktree's .git is a file naming its branch
			return nil
		}
		if !d.Type().IsRegular() || strings.HasSuffix(rel, "go.sum") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.IndexByte(b, 0) >= 0 { // binary: images, gzip
			return nil
		}
		n++
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, len(b)+1)
		for line := 1; sc.Scan(); line++ {
			if m := workHistory.FindString(sc.Text()); m != "" {
				t.Errorf("%s:%d: %q says how the work was done, not what the product does: %s", rel, line, strings.TrimSpace(m), strings.TrimSpace(sc.Text()))
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("read %d text files under %s: the walk is broken", n, root)
	}
}

func TestWorkHistoryPattern(t *testing.T) {
	step, issue, branch := "stop ", "issue ", "h-"
	for text, want := range map[string]bool{
		"measured at " + step + "30":          true,
		"S" + step[1:] + "18 measured 27 min": true,
		"the gap of " + issue + "25":          true,
		issue + "#6 suggested":                true,
		"after " + branch + "gate merged":     true,
		"kubernetes/kubeadm#3301":             false,
		"stops the linker":                    false,
		"an issue with 3 servers":             false,
		"t.Helper()":                          false,
		"--peer-ca-file and a cache-profiles": false,
	} {
		if got := workHistory.MatchString(text); got != want {
			t.Errorf("workHistory.MatchString(%q) = %v, want %v", text, got, want)
		}
	}
}

// The first screen of README.md: the first result a reader can copy — an offline command
// (no cluster needed) and the output the README shows for it — ends within firstScreen
// lines, and so do the two set-up commands, make build and make test.
const firstScreen = 40

func TestREADMEFirstScreen(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := Extract(root)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	first := 0
	for _, c := range cmds {
		if c.File == "README.md" && c.Kind == Offline {
			first = c.Line
			break
		}
	}
	if first == 0 {
		t.Fatal("README.md shows no offline command")
	}
	end := first // the command, then the output shown under it as comment lines
	for end < len(lines) && strings.HasPrefix(lines[end], "# ") {
		end++
	}
	if end == first {
		t.Errorf("README.md:%d: %s shows no output under it", first, lines[first-1])
	}
	if end > firstScreen {
		t.Errorf("README.md: the first offline command and its output end at line %d, after the first %d lines", end, firstScreen)
	}
	for _, setup := range []string{"make build", "make test"} {
		at := 0
		for i, l := range lines {
			if strings.HasPrefix(l, setup) {
				at = i + 1
				break
			}
		}
		if at == 0 || at > firstScreen {
			t.Errorf("README.md: %q is not a command line of the first %d lines (line %d)", setup, firstScreen, at)
		}
	}
}
