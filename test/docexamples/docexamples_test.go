package docexamples

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSplitAndComment(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"mvpctl snapshot -f cluster.json   # records", []string{"mvpctl", "snapshot", "-f", "cluster.json"}},
		{`mvpctl explain "GET" '/a # b'`, []string{"mvpctl", "explain", "GET", "/a # b"}},
	} {
		got, err := split(stripComment(tc.in))
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := split("mvpctl routes -o dot | dot -Tpng"); err == nil {
		t.Error("a pipe was accepted")
	}
}

func TestExtractRepo(t *testing.T) {
	cmds, err := Extract("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cmds {
		t.Logf("%-8s %-60s %v > %q (%s)", c.Kind, c, c.Args, c.Stdout, c.Why)
	}
}

// A command no test can run is an error: the docs cannot gain untested commands.
func TestExtractRefusesUntestable(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	readme := "# x\n\nprose: mvpctl routes --snapshot prose.yaml is not a command\n\n```sh\n" +
		"mvpctl routes --snapshot examples/skew.yaml   # offline\n" +
		"$ mvpctl snapshot -f mine.yaml\n" +
		"mvpctl explain --snapshot mine.yaml GET /api\n" +
		"mvpctl probe --snapshot elsewhere.yaml\n" +
		"mvpctl snapshot --endpoint https://192.168.1.7:6443\n" +
		"mvpctl frobnicate\n" +
		"mvpctl routes -o dot | dot -Tpng\n" +
		"```\n"
	if err := os.WriteFile(filepath.Join(root, "README.md"), []byte(readme), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "docs", "a.md"), []byte("```\nmvpctl explain --snapshot mine.yaml GET /api\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Extract(root)
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	t.Log(msg)
	for _, want := range []string{"README.md:9: mvpctl probe --snapshot elsewhere.yaml", `address "https://192.168.1.7:6443"`, `unknown command "frobnicate"`, "docs/a.md:2"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q", want)
		}
	}
	if strings.Contains(msg, "README.md:8") || strings.Contains(msg, "prose.yaml") {
		t.Errorf("refused a runnable command or read prose")
	}
}
