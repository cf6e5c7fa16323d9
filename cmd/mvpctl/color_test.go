package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/kubeflags"
)

const (
	ansiCyan  = "\x1b[36m"
	ansiRed   = "\x1b[31m"
	ansiReset = "\x1b[0m"
)

// runOnTerminal is run with stdout a terminal, as far as mvpctl can tell.
func runOnTerminal(t *testing.T, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	code := execute(args, &globalOptions{streams: Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, OutIsTerminal: true},
		configFlags: kubeflags.New(), clock: func() time.Time { return fixedNow }})
	if code == ExitError {
		t.Fatalf("%v: %s", args, errOut.String())
	}
	return out.String()
}

// TestColor: explain, simulate and watch colour 404/503 red and proxied cyan on a terminal,
// in their tables and text, and never with NO_COLOR, --no-color or a machine format.
func TestColor(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	const example = "../../examples/skew.yaml"
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"explain", "--snapshot", example, "jobs.batch"}, []string{"kas-b: " + ansiCyan + "proxied to kas-a"}},
		{[]string{"explain", "--snapshot", example, "-o", "wide", "jobs.batch"}, []string{ansiCyan + "proxied to kas-a" + ansiReset}},
		{[]string{"explain", "--snapshot", skew, "-o", "table", "POST", "/apis/example.com/v1/namespaces/x/widgets"}, []string{ansiRed + "404 Not Found" + ansiReset}},
		{[]string{"explain", "--snapshot", skew, "-o", "table", "GET", "/apis/storage.k8s.io/v1beta2/volumeattributesclasses"}, []string{ansiRed + "503 Service Unavailable" + ansiReset}},
		{[]string{"simulate", "upgrade", "--snapshot", example, "--to", "1.37", "--steps", "all"}, []string{ansiRed + "404" + ansiReset, ansiCyan + "proxy→kas-a" + ansiReset}},
		{[]string{"routes", "--snapshot", skew}, []string{ansiRed + "404" + ansiReset}},
	} {
		out := runOnTerminal(t, tc.args...)
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: no %q in\n%s", tc.args, w, out)
			}
		}
		for _, off := range [][]string{{"--no-color"}, {"-o", "json"}, {"-o", "csv"}} {
			if out := runOnTerminal(t, append(append([]string(nil), tc.args...), off...)...); strings.Contains(out, "\x1b[") {
				t.Errorf("%v %v: coloured", tc.args, off)
			}
		}
	}
	t.Setenv("NO_COLOR", "1")
	if out := runOnTerminal(t, "routes", "--snapshot", skew); strings.Contains(out, "\x1b[") {
		t.Error("NO_COLOR: coloured")
	}
}
