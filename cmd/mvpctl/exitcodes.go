package main

import (
	"errors"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/process"
	"github.com/mvpctl/mvpctl/pkg/report"
)

// The exitcodes*.go files are the one place where mvpctl's exit codes are decided: the codes
// and the one map from a result's class to its code (this file), each command's result as its
// library decides it (exitcodes_results.go), and the table that documents them
// (exitcodes_doc.go: printed by `mvpctl help exit-codes` and copied in docs/exit-codes.md,
// which a test keeps equal). The libraries return typed results (report.Result); they never
// choose an exit code.

// Exit codes. CI gates depend on them: change them only with a major version.
const (
	ExitOK = 0
	// ExitError is a usage or input error: bad flag or output format, unknown command,
	// malformed snapshot, unparsable request, unknown server. Nothing useful was printed.
	ExitError = 1
	// ExitIncomplete is a result printed with a caveat, either of two kinds: it is partial
	// (some apiserver could not be read, some document is not recorded, some request could
	// not be probed: the output marks what is missing), or, for preflight, its findings are
	// warnings only.
	ExitIncomplete = 2
	// ExitFindings is a result with findings that block: a prediction contradicted by a live
	// server, stale or missing discovery, a GVR that would 404 or 503 during an upgrade.
	ExitFindings = 3
	// ExitInterrupted and ExitTerminated: ended by SIGINT or SIGTERM, 128 + the signal's
	// number as shells report it (cmd/mvpctl/internal/process decides them where the signal comes).
	ExitInterrupted = process.ExitInterrupted
	ExitTerminated  = process.ExitTerminated
)

// exitError carries an exit code through cobra's error return.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// withCode wraps err so Execute exits with code.
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// exitCode is the code a command's error exits with: ExitError unless the error says
// otherwise.
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return ExitError
}

// classExitCodes is the exit code of each class of result: the one map from what a library
// decided to what the process exits with.
var classExitCodes = map[report.Class]int{
	report.OK:       ExitOK,
	report.Partial:  ExitIncomplete,
	report.Warnings: ExitIncomplete,
	report.Blocking: ExitFindings,
	report.Usage:    ExitError,
}

// resultError is the error a command returns for its result: nil when it is OK, else the one
// line that says why, exiting with the code of its class. The line is worded here: a partial
// result says so first; a blocking or a warnings result is introduced by subject (the check
// that blocks, "explain", or what the caveats qualify, "incomplete result"); a usage result
// is its reason alone.
func resultError(r report.Result, subject string) error {
	if r.OK() {
		return nil
	}
	var line string
	switch r.Class {
	case report.Partial:
		line = "partial result: " + r.Reason.String()
	case report.Blocking, report.Warnings:
		line = subject + ": " + r.Reason.String()
	default:
		line = r.Reason.String()
	}
	return withCode(classExitCodes[r.Class], errors.New(line))
}
