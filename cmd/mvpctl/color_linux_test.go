//go:build linux

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestColorOnTerminal: mvpctl routes colours proxied cells (cyan) and 404/503 cells (red)
// when stdout is a terminal (a pty), and not with NO_COLOR, --no-color, or a pipe.
func TestColorOnTerminal(t *testing.T) {
	const example = "../../examples/skew.yaml"
	onPTY := func(env []string, args ...string) string {
		t.Helper()
		master, replica := openPTY(t)
		cmd := exec.Command(binary(t), args...)
		cmd.Env = append(os.Environ(), env...)
		cmd.Stdout = replica
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		replica.Close()
		var out bytes.Buffer
		done := make(chan struct{})
		go func() { _, _ = io.Copy(&out, master); close(done) }() // ends with EIO once the child exits
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%v: %v: %s", args, err, stderr.String())
		}
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("the pty was not drained")
		}
		return out.String()
	}
	const cyan, red, reset = "\x1b[36m", "\x1b[31m", "\x1b[0m"
	out := onPTY([]string{"NO_COLOR="}, "routes", "--snapshot", example)
	if !strings.Contains(out, cyan+"proxy→kas-a"+reset) {
		t.Errorf("on a terminal, proxied cells are not cyan:\n%q", firstLines(out, 3))
	}
	if strings.Contains(out, cyan+"local") {
		t.Error("a local cell is coloured")
	}
	// The example has no 404 at the start; simulate's AT RISK rows are 404s.
	if out := onPTY([]string{"NO_COLOR="}, "simulate", "upgrade", "--snapshot", example, "--to", "1.37"); !strings.Contains(out, red+"404"+reset) {
		t.Errorf("on a terminal, simulate's 404s are not red:\n%q", firstLines(out, 8))
	}
	for _, tc := range []struct {
		name string
		env  []string
		args []string
	}{
		{"NO_COLOR", []string{"NO_COLOR=1"}, nil},
		{"--no-color", []string{"NO_COLOR="}, []string{"--no-color"}},
		{"csv", []string{"NO_COLOR="}, []string{"-o", "csv"}},
		{"json", []string{"NO_COLOR="}, []string{"-o", "json"}},
	} {
		out := onPTY(tc.env, append([]string{"routes", "--snapshot", example}, tc.args...)...)
		if strings.Contains(out, "\x1b[") || !strings.Contains(out, "proxy→kas-a") {
			t.Errorf("%s: coloured, or no result:\n%q", tc.name, firstLines(out, 3))
		}
	}
	// A pipe: never.
	r := runProcess(t, processRun{args: []string{"routes", "--snapshot", example}, env: []string{"NO_COLOR="}})
	if strings.Contains(r.stdout, "\x1b[") || !strings.Contains(r.stdout, "proxy→kas-a") {
		t.Errorf("stdout a pipe: coloured, or no result:\n%q", firstLines(r.stdout, 3))
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}
