package main

import (
	"testing"

	"github.com/mvpctl/mvpctl/pkg/report"
)

type reason string

func (r reason) String() string { return string(r) }

// TestResultError: every class of result has its exit code in the one map, and the error
// line is worded by the class: partial first says so, blocking and warnings name the check.
func TestResultError(t *testing.T) {
	for _, tc := range []struct {
		r    report.Result
		code int
		line string
	}{
		{report.Done(), ExitOK, ""},
		{report.Of(report.Partial, reason("b could not be read")), ExitIncomplete, "partial result: b could not be read"},
		{report.Of(report.Warnings, reason("it rests on 1 assumption(s)")), ExitIncomplete, "check: it rests on 1 assumption(s)"},
		{report.Of(report.Blocking, reason("1 stale")), ExitFindings, "check: 1 stale"},
		{report.Of(report.Usage, reason("nothing read")), ExitError, "nothing read"},
	} {
		err := resultError(tc.r, "check")
		if code := exitCode(err); code != tc.code || (err != nil) != (tc.line != "") || (err != nil && err.Error() != tc.line) {
			t.Errorf("%s: exit %d, %v; want exit %d, %q", tc.r, code, err, tc.code, tc.line)
		}
	}
	for c := report.OK; c <= report.Usage; c++ {
		if _, ok := classExitCodes[c]; !ok {
			t.Errorf("class %s has no exit code", c)
		}
	}
}
