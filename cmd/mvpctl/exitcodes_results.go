package main

import (
	"fmt"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/render"
	"github.com/mvpctl/mvpctl/pkg/basis"
	"github.com/mvpctl/mvpctl/pkg/peerdiscovery"
	"github.com/mvpctl/mvpctl/pkg/preflight"
	"github.com/mvpctl/mvpctl/pkg/probe"
	"github.com/mvpctl/mvpctl/pkg/profilerecord"
	"github.com/mvpctl/mvpctl/pkg/proxytraffic"
	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/report"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/mvpctl/mvpctl/pkg/watch"
)

// Each command's result is decided by the package that owns its report, as a typed
// report.Result; these give it to resultError (exitcodes.go), which words the error line and
// picks the exit code.

// snapshotResult is `mvpctl snapshot`'s result (basis.RestsOn.TakenResult).
func snapshotResult(snap *snapshot.Snapshot) error {
	return resultError(basis.OfSnapshot(snap).TakenResult(), "")
}

// partialResult is the result of a command that routes a snapshot (routes:
// basis.RestsOn.MadeResult).
func partialResult(snap *snapshot.Snapshot) error {
	return resultError(basis.OfSnapshot(snap).MadeResult(), "")
}

// explainResult is explain's result (route.Explanation.Result).
func explainResult(e route.Explanation, failOn []int, snap *snapshot.Snapshot, oneServer bool) error {
	return resultError(e.Result(failOn, snap, oneServer), "explain")
}

// expectedDiscoveryResult is `discovery expected`'s result.
func expectedDiscoveryResult(es []peerdiscovery.Expectation) error {
	return resultError(peerdiscovery.ExpectationsResult(es), "")
}

// discoveryDiffResult is `discovery diff`'s result.
func discoveryDiffResult(rep *peerdiscovery.Report) error {
	return resultError(rep.Result(), "discovery diff")
}

// probeResult is `mvpctl probe`'s result.
func probeResult(rep *probe.Report) error { return resultError(rep.Result(), "probe") }

// trafficReadable refuses a traffic report in which no server's counters could be read
// (proxytraffic.Report.Result's usage class): there is nothing to show.
func trafficReadable(rep *proxytraffic.Report) error {
	if r := rep.Result(); r.Class == report.Usage {
		return resultError(r, "")
	}
	return nil
}

// trafficResult is `mvpctl traffic`'s result, once the report is shown.
func trafficResult(rep *proxytraffic.Report) error { return resultError(rep.Result(), "") }

// preflightResult is `mvpctl preflight`'s result: its verdict's exit class (preflight.Decide
// decides it, at the --fail-on threshold), with the verdict's reason.
func preflightResult(v preflight.Verdict) error {
	code := verdictExitCode(v)
	if code == ExitOK {
		return nil
	}
	return withCode(code, fmt.Errorf("preflight: %s, %s: %s", v.Result, render.VerdictExit(v, code), v.Reason))
}

// verdictExitCode is the exit code of a preflight verdict's exit class, by the one map.
func verdictExitCode(v preflight.Verdict) int { return classExitCodes[v.Exit] }

// simulateResult is `mvpctl simulate`'s result (replay.SimulationReport.Result).
func simulateResult(rep replay.SimulationReport) error {
	return resultError(rep.Result(), "incomplete result")
}

// watchResult is `mvpctl watch`'s result (and `routes --watch`'s). An interrupted watch exits
// 130/143 whatever this says (process.HandleSignals).
func watchResult(res watch.Result) error { return resultError(res.Verdict(), "watch") }

// profileRecordResult is `mvpctl profiles record`'s result.
func profileRecordResult(rep profilerecord.Report) error {
	return resultError(rep.Result(), "profile recorded with caveats")
}
