package docexamples

import (
	"reflect"
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
