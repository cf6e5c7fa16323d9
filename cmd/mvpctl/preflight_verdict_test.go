package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/preflight"
	"sigs.k8s.io/yaml"
)

// TestPreflightVerdictEveryFormat runs preflight for every verdict at every --fail-on and in
// every format that prints a result, and checks that each format and the exit code say the
// same: the result, and how the run ends.
func TestPreflightVerdictEveryFormat(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		result preflight.Result
		exit   map[preflight.FailOn]int
	}{
		{"pass", []string{"--servers", "a=1.37,b=1.37", "--proxy", "configured", "--to", "1.37"}, preflight.ResultPass,
			map[preflight.FailOn]int{"warning": ExitOK, "blocking": ExitOK, "never": ExitOK}},
		{"warning findings", []string{"--servers", "a=1.36,b=1.36,c=1.36", "--proxy", "configured", "--to", "1.37", "--requests", "testdata/requests.txt"}, preflight.ResultWarning,
			map[preflight.FailOn]int{"warning": ExitIncomplete, "blocking": ExitOK, "never": ExitOK}},
		{"assumption, no finding", []string{"--servers", "a=1.37,b=1.37", "--to", "1.37"}, preflight.ResultWarning,
			map[preflight.FailOn]int{"warning": ExitIncomplete, "blocking": ExitOK, "never": ExitOK}},
		{"provisional profile, no finding", []string{"--servers", "a=1.37,b=1.37,c=1.37", "--proxy=configured", "--to", "1.38"}, preflight.ResultWarning,
			map[preflight.FailOn]int{"warning": ExitIncomplete, "blocking": ExitOK, "never": ExitOK}},
		{"partial read", []string{"--snapshot", lbEstimated, "--to", "1.37"}, preflight.ResultPartial,
			map[preflight.FailOn]int{"warning": ExitIncomplete, "blocking": ExitIncomplete, "never": ExitOK}},
		{"blocking", []string{"--snapshot", "../../examples/skew.yaml", "--to", "1.37"}, preflight.ResultBlocking,
			map[preflight.FailOn]int{"warning": ExitFindings, "blocking": ExitFindings, "never": ExitOK}},
	}
	for _, tc := range cases {
		for _, failOn := range preflight.FailOnValues {
			want := tc.exit[failOn]
			says := fmt.Sprintf("exit %d at --fail-on %s", want, failOn)
			for _, format := range []string{"table", "wide", "markdown", "json", "yaml", "junit"} {
				t.Run(tc.name+"/"+string(failOn)+"/"+format, func(t *testing.T) {
					args := append(append([]string{"preflight"}, tc.args...), "--fail-on", string(failOn), "-o", format)
					out, errOut, code := run(t, args...)
					if code != want {
						t.Fatalf("exit %d, want %d; stderr:\n%s", code, want, errOut)
					}
					if err := verdictPrinted(format, out, tc.result, says, failOn, code); err != nil {
						t.Error(err)
					}
				})
			}
		}
	}
}

// verdictPrinted checks that out, in format, prints result and says how the run ends (exit
// code code at --fail-on failOn).
func verdictPrinted(format, out string, result preflight.Result, says string, failOn preflight.FailOn, code int) error {
	switch format {
	case "table", "wide":
		want := "Result: " + string(result) + " ("
		for _, l := range paragraphs(out) {
			if strings.HasPrefix(l, want) && strings.HasSuffix(l, "): "+says) {
				return nil
			}
		}
		return fmt.Errorf("no line %q…%q in:\n%s", want, says, out)
	case "markdown":
		if want := fmt.Sprintf("### mvpctl preflight: %s (%s)\n", result, says); !strings.HasPrefix(out, want) {
			return fmt.Errorf("markdown starts %q, want %q", firstLine(out), want)
		}
	case "json", "yaml":
		var rep preflight.Report
		var err error
		if format == "json" {
			err = json.Unmarshal([]byte(out), &rep)
		} else {
			err = yaml.Unmarshal([]byte(out), &rep)
		}
		v := rep.Verdict
		if err != nil || v.Result != result || rep.Summary.Result != result || v.FailOn != failOn || verdictExitCode(v) != code {
			return fmt.Errorf("%s: verdict %+v, summary result %s (%v); want %s, exit %d", format, v, rep.Summary.Result, err, result, code)
		}
	case "junit":
		return junitAgrees(out, code, failOn)
	}
	return nil
}

// junitAgrees: the JUnit report fails iff the run does, and only findings at or above failOn
// (and the verdict) are failures.
func junitAgrees(out string, code int, failOn preflight.FailOn) error {
	var doc struct {
		Failures int `xml:"failures,attr"`
		Suite    struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Type string `xml:"type,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(out), &doc); err != nil {
		return err
	}
	if (doc.Failures > 0) != (code != ExitOK) {
		return fmt.Errorf("junit: %d failure(s), exit %d", doc.Failures, code)
	}
	v := preflight.Decide(preflight.VerdictInput{FailOn: failOn})
	for _, c := range doc.Suite.Cases {
		if c.Failure == nil || strings.HasPrefix(c.Name, "verdict: ") {
			continue
		}
		if !v.FailsOn(preflight.Severity(c.Failure.Type)) {
			return fmt.Errorf("junit: %s fails as %s at --fail-on %s", c.Name, c.Failure.Type, failOn)
		}
	}
	return nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// paragraphs are the lines of text output with the lines a wrap continued (indented) joined
// to the line they continue, one space apart: a sentence as it reads.
func paragraphs(out string) []string {
	var ps []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, " ") && len(ps) > 0 {
			ps[len(ps)-1] += " " + strings.TrimLeft(l, " ")
			continue
		}
		ps = append(ps, l)
	}
	return ps
}
