package architecture

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// platforms are the file-name suffixes that select a platform (children_linux.go): a file
// named package_linux.go says its job by the platform.
var platforms = map[string]bool{"linux": true, "darwin": true, "windows": true, "unix": true, "other": true}

// repeatedNames are the Go files under root whose name repeats their package's directory name
// (replay/replay_text.go), relative to root: a file's name says its job, not the package's
// name again. The package's own file (replay.go), its test (replay_test.go) and a platform's
// variant (process_linux.go) do not repeat it. testdata and hidden directories are skipped.
func repeatedNames(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		pkg := filepath.Base(filepath.Dir(path))
		rest, ok := strings.CutPrefix(d.Name(), pkg+"_")
		if !ok || !strings.HasSuffix(rest, ".go") {
			return nil
		}
		rest = strings.TrimSuffix(strings.TrimSuffix(rest, ".go"), "_test")
		if rest == "test" || rest == "" || platforms[rest] {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestFileNamesSayTheirJob(t *testing.T) {
	for _, f := range repeatedNames(t, moduleRoot(t)) {
		t.Errorf("%s repeats its package's name: name the file by its job", f)
	}
}

func TestRepeatedNamesFinds(t *testing.T) {
	dir := t.TempDir()
	write := writerIn(t, dir)
	for _, name := range []string{"pkg/replay/replay.go", "pkg/replay/replay_test.go", "pkg/replay/replay_text.go",
		"pkg/replay/replay_ids_test.go", "pkg/replay/agents.go", "pkg/process/process_linux.go", "pkg/replay/testdata/replay_x.go"} {
		write(name, "package x\n")
	}
	want := []string{filepath.Join("pkg", "replay", "replay_ids_test.go"), filepath.Join("pkg", "replay", "replay_text.go")}
	if got := repeatedNames(t, dir); !slices.Equal(got, want) {
		t.Errorf("repeatedNames = %q, want %q", got, want)
	}
}
