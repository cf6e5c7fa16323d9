package main

import (
	"os"
	"strings"
	"testing"
)

// TestFirstHourStumbles: each mistake a new user makes in the first hour gets the answer
// that helps, with the right exit code.
func TestFirstHourStumbles(t *testing.T) {
	skew := "../../examples/skew.yaml"
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string // what stderr must say
		stdout string // what stdout must say ("" when nothing is checked)
	}{
		{"a group's flag names the command it needs", []string{"simulate", "--snapshot", skew, "--to", "1.37"}, ExitError,
			"mvpctl simulate needs a command first: mvpctl simulate run|upgrade --snapshot", ""},
		{"a flag typo gets the closest flag", []string{"simulate", "upgrade", "--snapshot", skew, "--too", "1.37"}, ExitError,
			"unknown flag: --too (did you mean --to?)", ""},
		{"a flag typo gets the closest flag, inherited too", []string{"routes", "--snapshot", skew, "--no-colour"}, ExitError,
			"(did you mean --no-color?)", ""},
		{"servers separated by a space", []string{"simulate", "upgrade", "--servers", "a=1.36", "b=1.36", "--to", "1.37"}, ExitError,
			"separate the servers of --servers with commas, not spaces: --servers a=1.36,b=1.36", ""},
		{"servers separated by a space, preflight", []string{"preflight", "--servers", "a=1.36", "b=1.36", "--to", "1.37"}, ExitError,
			"--servers a=1.36,b=1.36", ""},
		{"a GVR typo", []string{"explain", "--snapshot", skew, "batch/v1/job"}, ExitError,
			"no apiserver serves or lists batch/v1/job: did you mean batch/v1/jobs?", ""},
		{"a GVR no server serves, nothing close: its 404 explained", []string{"explain", "--snapshot", skew, "extensions/v1beta1/ingresses"}, ExitOK,
			"", "404 Not Found"},
		{"routes of a profile-based plane", []string{"routes", "--servers", "a=1.36,b=1.37", "--proxy", "configured"}, ExitOK,
			"", "resource.k8s.io/v1/devicetaintrules"},
		{"the offline simulate names the snapshot file", []string{"simulate", "upgrade", "--snapshot", skew, "--to", "1.37"}, ExitOK,
			"", "Start: snapshot ../../examples/skew.yaml (taken 2026-11-23T09:36:29Z, of context \"kas-a\""},
		{"the per-step servers read plainly", []string{"simulate", "upgrade", "--servers", "a=1.36,b=1.36,c=1.36", "--to", "1.37"}, ExitIncomplete,
			"", "a (steps 2–3); a, b (step 4)"},
	} {
		stdout, stderr, code := run(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.stderr) || !strings.Contains(stdout, tc.stdout) {
			t.Errorf("%s: mvpctl %s: exit %d (want %d)\nstderr: %s\nwant it to say: %s\nstdout:\n%s\nwant it to say: %s",
				tc.name, strings.Join(tc.args, " "), code, tc.code, stderr, tc.stderr, stdout, tc.stdout)
		}
	}
}

// TestSimulateStartDoesNotClaimAConnection: read from a file, the start is the file, not the
// context it was recorded from as if mvpctl had connected to it.
func TestSimulateStartDoesNotClaimAConnection(t *testing.T) {
	out, _, _ := run(t, "simulate", "upgrade", "--snapshot", "../../examples/skew.yaml", "--to", "1.37")
	if strings.Contains(out, "Start: context") {
		t.Errorf("the offline start reads as a connection:\n%s", out)
	}
}

// TestChangedRowsLookChanged: every row a step lists as changed differs from the last table
// printed before it, as printed: a crash's two phases differ in the 503's kind, so it shows.
func TestChangedRowsLookChanged(t *testing.T) {
	out, _, _ := run(t, "simulate", "run", "--snapshot", "../../examples/skew.yaml", "--step", "crash:kas-a", "--group", "batch")
	tables := strings.Split(out, "row(s) change:\n")
	for i := 2; i < len(tables); i++ {
		before, after := firstTable(tables[i-1]), firstTable(tables[i])
		if before == after {
			t.Errorf("step table %d lists rows as changed that print as before:\n%s", i, after)
		}
	}
	if len(tables) < 3 {
		t.Fatalf("want the crash's two phases:\n%s", out)
	}
}

func firstTable(s string) string {
	table, _, _ := strings.Cut(s, "\n\n")
	return table
}

// TestServedByNeverNamesADownServer: simulate's SERVED-BY lists only servers up at the step.
func TestServedByNeverNamesADownServer(t *testing.T) {
	out, _, _ := run(t, "simulate", "run", "--snapshot", "../../examples/skew.yaml", "--step", "crash:kas-a", "--group", "batch", "-o", "csv")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		cells := strings.Split(line, ",")
		if served := cells[len(cells)-1]; strings.Contains(served, "kas-a") {
			t.Errorf("kas-a is down at step 1, and SERVED-BY names it: %s", line)
		}
	}
	text, _, _ := run(t, "simulate", "run", "--snapshot", "../../examples/skew.yaml", "--step", "crash:kas-a", "--group", "batch")
	if !strings.Contains(strings.Join(paragraphs(text), "\n"), "no server that is up") {
		t.Errorf("SERVED-BY does not say that no server that serves it is up:\n%s", text)
	}
}

// TestREADMEOneMinuteIsOneMinute: README's "Try it in one minute" runs no test suite.
func TestREADMEOneMinuteIsOneMinute(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "## Try it in one minute")
	section, _, _ = strings.Cut(section, "\n## ")
	if strings.Contains(section, "make test") {
		t.Errorf("README's \"Try it in one minute\" runs make test (20–70 minutes):\n%s", section)
	}
}
