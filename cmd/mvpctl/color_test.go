package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/internal/kubeflags"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/watch"
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

// TestWatchLineColor: a 404/503 window opening is red, an outcome that becomes proxied cyan
// and one that becomes a 503 red — the aggregator's too, whose cell begins "local": the colour
// is the event's outcome, not its text — in the text stream only.
func TestWatchLineColor(t *testing.T) {
	opened := watch.EventDoc{Type: watch.WindowOpened, Time: fixedNow, Server: "kas-b", Version: "v1.36.3", GVR: "batch/v1/jobs",
		Window: &watch.WindowDoc{Outcome: mvp.NotFound, ServedBy: []string{"kas-a"}}}
	changed := watch.EventDoc{Type: watch.OutcomeChanged, Time: fixedNow, Server: "kas-b", Version: "v1.36.3", GVR: "batch/v1/jobs", From: "404", To: "proxy→kas-a", ToOutcome: mvp.Proxied}
	failing := watch.EventDoc{Type: watch.OutcomeChanged, Time: fixedNow, Server: "kas-b", Version: "v1.36.3", GVR: "batch/v1/jobs", From: "local", To: "local 503 (APIService unavailable)", ToOutcome: mvp.Unavailable}
	on := output.Options{Format: output.FormatText, Color: true}
	for _, tc := range []struct {
		doc  watch.EventDoc
		want string
	}{
		{opened, "12:00:00 kas-b v1.36.3: " + ansiRed + "batch/v1/jobs 404 window opened" + ansiReset + " (served by kas-a)"},
		{changed, "12:00:00 kas-b v1.36.3: batch/v1/jobs 404 ⇒ " + ansiCyan + "proxy→kas-a" + ansiReset},
		{failing, "12:00:00 kas-b v1.36.3: batch/v1/jobs local ⇒ " + ansiRed + "local 503 (APIService unavailable)" + ansiReset},
	} {
		l := eventLine{doc: tc.doc, loc: time.UTC}
		if got := l.paint(on); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
		if got := l.paint(output.Options{Format: output.FormatText}); strings.Contains(got, "\x1b[") {
			t.Errorf("without colour: %q", got)
		}
		if got := l.paint(output.Options{Format: output.FormatJSON, Color: true}); strings.Contains(got, "\x1b[") {
			t.Errorf("json: %q", got)
		}
	}
}
