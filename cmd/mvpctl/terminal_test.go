package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/kubeflags"
	"github.com/mvpctl/mvpctl/pkg/output"
)

// runOnWidth is run with stdout a terminal of width columns.
func runOnWidth(t *testing.T, width int, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = execute(args, &globalOptions{streams: Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, OutIsTerminal: true, Width: width},
		configFlags: kubeflags.New(), clock: func() time.Time { return fixedNow }})
	return out.String(), errOut.String(), code
}

// fiveServers is a rehearsal of five servers, the widest plane a first day meets.
var fiveServers = []string{"--servers", "a=1.36,b=1.36,c=1.36,d=1.36,e=1.36", "--to", "1.37"}

// TestFitsTerminal: at 80 and 100 columns no line of routes, explain, simulate upgrade,
// preflight (text) or any help is wider than the terminal, for the example snapshot and for
// a five-server rehearsal.
func TestFitsTerminal(t *testing.T) {
	skew := []string{"--snapshot", "../../examples/skew.yaml"}
	commands := [][]string{
		append([]string{"routes"}, skew...),
		{"routes", "--servers", "a=1.36,b=1.36,c=1.36,d=1.36,e=1.36"},
		{"routes", "--servers", "a=1.36,b=1.37,c=1.36,d=1.37,e=1.36", "--proxy", "configured"},
		append([]string{"explain", "jobs.batch"}, skew...),
		append([]string{"explain", "-o", "table", "jobs.batch"}, skew...),
		append([]string{"explain", "--step", "crash:kas-a", "GET", "/apis/batch/v1/jobs"}, skew...),
		append([]string{"explain", "--step", "crash:kas-a", "-o", "table", "GET", "/apis/batch/v1/jobs"}, skew...),
		append([]string{"simulate", "upgrade", "--to", "1.37"}, skew...),
		append([]string{"simulate", "upgrade"}, fiveServers...),
		append([]string{"preflight", "--to", "1.37"}, skew...),
		{"preflight", "--servers", "a=1.37,b=1.37", "--to", "1.38"},
		append([]string{"preflight"}, fiveServers...),
	}
	for _, c := range runnableCommands() {
		commands = append(commands, append(strings.Fields(c.CommandPath())[1:], "--help"))
	}
	commands = append(commands, []string{"--help"}, []string{"simulate", "--help"}, []string{"options"})
	for _, width := range []int{80, 100} {
		for _, args := range commands {
			out, errOut, code := runOnWidth(t, width, args...)
			if code == ExitError {
				t.Errorf("%v: exit %d: %s", args, code, errOut)
				continue
			}
			for i, line := range strings.Split(out, "\n") {
				if w := output.DisplayWidth(line); w > width {
					t.Errorf("%d columns, %v: line %d is %d wide: %s", width, args, i+1, w, line)
				}
			}
		}
	}
}

// TestHelpFits100Columns: every help text fits 100 columns on a pipe too (kubectl's fit 80;
// a terminal narrower than 100 gets its own width, TestFitsTerminal).
func TestHelpFits100Columns(t *testing.T) {
	commands := [][]string{{"--help"}, {"simulate", "--help"}, {"help", "preflight"}}
	for _, c := range runnableCommands() {
		commands = append(commands, append(strings.Fields(c.CommandPath())[1:], "--help"))
	}
	for _, args := range commands {
		out, _, _ := run(t, args...)
		for i, line := range strings.Split(out, "\n") {
			if w := output.DisplayWidth(line); w > helpColumns {
				t.Errorf("%v: line %d is %d wide: %s", args, i+1, w, line)
			}
		}
	}
}

// TestPipeKeepsFullLines: without a terminal, and with -o wide on one, a table's lines are
// whole: only a terminal is fitted.
func TestPipeKeepsFullLines(t *testing.T) {
	args := []string{"explain", "--snapshot", "../../examples/skew.yaml", "-o", "wide", "--no-color", "jobs.batch"}
	piped, _, _ := run(t, args...)
	wide, _, _ := runOnWidth(t, 60, args...)
	if piped != wide {
		t.Errorf("-o wide on a terminal of 60 columns:\n%s\nwant as piped:\n%s", wide, piped)
	}
	args[4] = "table"
	piped, _, _ = run(t, args...)
	fitted, _, _ := runOnWidth(t, 60, args...)
	if fitted == piped || !strings.Contains(piped, "kas-b does not serve batch/v1 itself; kas-a does") {
		t.Errorf("piped table not whole, or the terminal's not fitted:\n%s\n%s", piped, fitted)
	}
}
