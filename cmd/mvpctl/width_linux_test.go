//go:build linux

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mvpctl/mvpctl/pkg/output"
)

// TestOutputFitsWidth: the default output of every command that prints a table or a report
// for people, on the shipped example, fits: on a terminal (a pty of 80, 100 and 200 columns,
// its width read from the terminal, COLUMNS unset) no line is wider than the terminal, no line
// is only blanks and no word is split (every word is one the pipe prints, or a header a
// table printed as records names); in a pipe no line
// is wider than output.PipeColumns. preflight's first screen is at most 40 lines at 100
// columns, the verdict first.
func TestOutputFitsWidth(t *testing.T) {
	const example = "../../examples/skew.yaml"
	commands := [][]string{
		{"preflight", "--snapshot", example, "--to", "1.37"},
		{"routes", "--snapshot", example},
		{"explain", "--snapshot", example, "resource.k8s.io/v1beta2/resourceclaims"},
		{"simulate", "upgrade", "--snapshot", example, "--to", "1.37"},
		{"profiles", "show", "1.37"},
		{"profiles", "list"},
	}
	for _, args := range commands {
		name := strings.Join(args[:min(2, len(args))], " ")
		piped := runProcess(t, processRun{args: args, env: []string{"NO_COLOR=1", "COLUMNS="}})
		words := map[string]bool{}
		for _, w := range strings.Fields(piped.stdout) {
			words[w] = true
		}
		checkLines(t, name+" (pipe)", piped.stdout, output.PipeColumns)
		for _, width := range []int{80, 100, 200} {
			out, errOut := onTerminal(t, width, args...)
			where := name + " (terminal, " + strconv.Itoa(width) + " columns)"
			checkLines(t, where, out, width)
			for _, w := range strings.Fields(out) {
				if !words[w] && !words[strings.TrimSuffix(w, ":")] { // HEADER: of a record
					t.Errorf("%s: %q is not a word of the piped output: a word was split:\n%s", where, w, out)
					break
				}
			}
			if args[0] == "preflight" && width == 100 {
				lines := strings.Count(out, "\n") + strings.Count(errOut, "\n")
				if lines > 40 || !strings.HasPrefix(out, "Result: blocking") || !strings.Contains(out, "fix: ") {
					t.Errorf("%s: %d lines (want at most 40), the result first and a fix:\n%s%s", where, lines, out, errOut)
				}
			}
		}
	}
}

// checkLines fails on a line wider than width or a line of blanks.
func checkLines(t *testing.T, where, out string, width int) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if output.DisplayWidth(line) > width {
			t.Errorf("%s: a line of %d columns:\n%s", where, output.DisplayWidth(line), line)
		}
		if line != "" && strings.TrimSpace(line) == "" {
			t.Errorf("%s: a line of blanks", where)
		}
	}
}

// onTerminal runs mvpctl with stdout a pty of width columns (its size set with TIOCSWINSZ;
// COLUMNS unset), stderr a pipe.
func onTerminal(t *testing.T, width int, args ...string) (stdout, stderr string) {
	t.Helper()
	master, replica := openPTY(t)
	if err := unix.IoctlSetWinsize(int(replica.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 50, Col: uint16(width)}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary(t), args...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "COLUMNS=")
	cmd.Stdout = replica
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	replica.Close()
	var out bytes.Buffer
	done := make(chan struct{})
	go func() { _, _ = io.Copy(&out, master); close(done) }() // ends with EIO once the child exits
	_ = cmd.Wait()                                            // exit 3: findings
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the pty was not drained")
	}
	return strings.ReplaceAll(out.String(), "\r\n", "\n"), errOut.String()
}
