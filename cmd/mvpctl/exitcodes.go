package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/peerdiscovery"
	"github.com/mvpctl/mvpctl/pkg/probe"
	"github.com/mvpctl/mvpctl/pkg/proxytraffic"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/mvpctl/mvpctl/pkg/watch"
)

// This file is the one place where mvpctl's exit codes are decided: the codes, the functions
// that map each command's result to one, and the table that documents them (printed by
// `mvpctl help exit-codes` and copied in docs/exit-codes.md, which a test keeps equal). The
// libraries return results; they never choose an exit code.

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

// snapshotResult is `mvpctl snapshot`'s result: partial when some apiserver could not be read.
func snapshotResult(snap *snapshot.Snapshot) error {
	if !snap.Partial() {
		return lbResult(snap)
	}
	unread := 0
	for i := range snap.Servers {
		if !snap.Servers[i].Reachable {
			unread++
		}
	}
	return withCode(ExitIncomplete, fmt.Errorf("partial result: %d of %d apiservers could not be read (recorded with reachable: false)", unread, len(snap.Servers)))
}

// partialResult is the result of a command that routes a snapshot (routes, explain): partial
// when some server could not be read, as the printed result does not cover it.
func partialResult(snap *snapshot.Snapshot) error {
	var names []string
	for _, s := range snap.Servers {
		if !s.Reachable {
			names = append(names, s.Name)
		}
	}
	if len(names) == 0 {
		return lbResult(snap)
	}
	return withCode(ExitIncomplete, fmt.Errorf("partial result: %s could not be read when the snapshot was taken", strings.Join(names, ", ")))
}

// lbResult is the caveat of a snapshot sampled through a load balancer: its outcomes are per
// server class and estimated from samples unless every identity lease was seen and nothing
// is in doubt (snapshot.LBSampling.Complete). An estimate is not a success.
func lbResult(snap *snapshot.Snapshot) error {
	lb := snap.Cluster.LB
	if lb == nil || lb.Complete() {
		return nil
	}
	return withCode(ExitIncomplete, fmt.Errorf("partial result: %s", lbIncompleteReason(lb)))
}

func lbIncompleteReason(lb *snapshot.LBSampling) string {
	if len(lb.Doubts) > 0 {
		return "sampled through a load balancer: " + strings.Join(lb.Doubts, "; ")
	}
	return fmt.Sprintf("sampled through a load balancer: %d of %d live identity leases seen, the server classes are estimated from samples", lb.LeasesSeen, lb.Leases)
}

// expectedDiscoveryResult is `discovery expected`'s result: partial when some expectation is
// missing or uncertain.
func expectedDiscoveryResult(es []peerdiscovery.Expectation) error {
	var parts []string
	for _, e := range es {
		switch {
		case !e.Predicted():
			parts = append(parts, fmt.Sprintf("%s (%s)", e.Server, e.Status))
		case len(e.Uncertain) > 0:
			parts = append(parts, fmt.Sprintf("%s (uncertain: %s)", e.Server, strings.Join(e.Uncertain, "; ")))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return withCode(ExitIncomplete, fmt.Errorf("partial result: no exact prediction for %s", strings.Join(parts, ", ")))
}

// discoveryDiffResult is `discovery diff`'s result: stale or missing entries block, and win
// over a partial check.
func discoveryDiffResult(rep *peerdiscovery.Report) error {
	s := rep.Summary
	switch {
	case s.Stale+s.Missing > 0:
		return withCode(ExitFindings, fmt.Errorf("discovery diff: %d stale, %d missing entr%s", s.Stale, s.Missing, plural(s.Stale+s.Missing, "y", "ies")))
	case rep.Partial:
		var parts []string
		for _, d := range rep.Servers {
			switch {
			case d.Status == peerdiscovery.StatusUnreachable || d.Status == peerdiscovery.StatusNotRecorded:
				parts = append(parts, fmt.Sprintf("%s (%s)", d.Name, d.Status))
			case len(d.Uncertain) > 0:
				parts = append(parts, fmt.Sprintf("%s (uncertain)", d.Name))
			}
		}
		return withCode(ExitIncomplete, fmt.Errorf("partial result: not checked: %s", strings.Join(parts, ", ")))
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// probeResult is `mvpctl probe`'s result: findings (mismatches, loop-header violations) win
// over a partial probe.
func probeResult(rep *probe.Report) error {
	s := rep.Summary
	if rep.Findings() {
		return withCode(ExitFindings, fmt.Errorf("probe: %d mismatch(es), %d loop-header violation(s) in %d result(s)", s.Mismatch, s.LoopViolations, s.Results))
	}
	if !rep.Partial {
		return nil
	}
	var parts []string
	if s.ServersNotProbed > 0 {
		var names []string
		for _, sr := range rep.Servers {
			if !sr.Probed {
				names = append(names, sr.Name)
			}
		}
		parts = append(parts, strings.Join(names, ", ")+" could not be probed")
	}
	if n := s.Inconclusive + s.Errors + s.NotMeasured; n > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d measurement(s) gave no routing evidence (%d inconclusive, %d error, %d not measured)", n, s.Results, s.Inconclusive, s.Errors, s.NotMeasured))
	}
	if len(parts) == 0 {
		parts = append(parts, rep.Interrupted)
	}
	return withCode(ExitIncomplete, fmt.Errorf("partial result: %s", strings.Join(parts, "; ")))
}

// trafficReadable refuses a traffic report in which no server's counters could be read: there
// is nothing to show, and an empty table would read as "nothing was proxied".
func trafficReadable(rep *proxytraffic.Report) error {
	for _, s := range rep.Servers {
		if s.Read {
			return nil
		}
	}
	first := ""
	if len(rep.Servers) > 0 {
		first = fmt.Sprintf(" (%s: %s)", rep.Servers[0].Name, rep.Servers[0].Note)
	}
	return fmt.Errorf("no apiserver's counters could be read%s", first)
}

// trafficResult is `mvpctl traffic`'s result: partial when some server's counters could not
// be read, or the interval was cut short.
func trafficResult(rep *proxytraffic.Report) error {
	var unread []string
	for _, s := range rep.Servers {
		if !s.Read {
			unread = append(unread, s.Name)
		}
	}
	switch {
	case len(unread) > 0:
		return withCode(ExitIncomplete, fmt.Errorf("partial result: the counters of %s could not be read", strings.Join(unread, ", ")))
	case rep.Interrupted != "":
		return withCode(ExitIncomplete, fmt.Errorf("partial result: %s", rep.Interrupted))
	}
	return nil
}

// preflightResult is `mvpctl preflight`'s result at the --fail-on threshold. A pass that rests
// on assumptions (a version's default configuration, no live server to observe) is not a
// pass: it exits 2 unless --fail-on=never; nor is one from a snapshot whose server classes
// were estimated through a load balancer.
func preflightResult(rep *simulate.PreflightReport, failOn simulate.FailOn, start *snapshot.Snapshot) error {
	var code int
	switch rep.Failing(failOn) {
	case simulate.Blocking:
		code = ExitFindings
	case simulate.Warning:
		code = ExitIncomplete
	default:
		if n := len(rep.Assumptions); n > 0 && failOn != simulate.FailOnNever {
			return withCode(ExitIncomplete, fmt.Errorf("preflight: no finding, but the result rests on %d assumption(s) (the ASSUMED lines): observe the servers (--snapshot or a live cluster) or state their configuration (--proxy)", n))
		}
		if lb := start.Cluster.LB; lb != nil && !lb.Complete() && failOn != simulate.FailOnNever {
			return withCode(ExitIncomplete, fmt.Errorf("preflight: no finding, but the start is %s", lbIncompleteReason(lb)))
		}
		return nil
	}
	return withCode(code, fmt.Errorf("preflight: %d blocking, %d warning finding(s)", rep.Summary.Blocking, rep.Summary.Warning))
}

// simulateResult is `mvpctl simulate`'s result: incomplete when it rests on assumptions or
// on a snapshot in which some apiserver could not be read. The at-risk rows are part of the
// output, not a verdict (preflight is the gate).
func simulateResult(rep simulate.SimulationReport, start *snapshot.Snapshot) error {
	var why []string
	if n := len(rep.Simulation.Assumptions); n > 0 {
		why = append(why, fmt.Sprintf("it rests on %d assumption(s) (the ASSUMED lines)", n))
	}
	var unread []string
	for _, s := range start.Servers {
		if !s.Reachable {
			unread = append(unread, s.Name)
		}
	}
	if len(unread) > 0 {
		why = append(why, strings.Join(unread, ", ")+" could not be read when the snapshot was taken")
	}
	if lb := start.Cluster.LB; lb != nil && !lb.Complete() {
		why = append(why, lbIncompleteReason(lb))
	}
	if len(why) == 0 {
		return nil
	}
	return withCode(ExitIncomplete, fmt.Errorf("incomplete result: %s", strings.Join(why, "; ")))
}

// watchResult is `mvpctl watch`'s result (and `routes --watch`'s): a 404/503 window is a
// finding, and wins over a partial watch — some read got nothing (every server counted as
// down for it), or some server was still down at the end, so its windows could not close.
// An interrupted watch exits 130/143 whatever this says (signals.go).
func watchResult(res watch.Result) error {
	s := res.Summary
	if n := len(s.Windows); n > 0 {
		servers := map[string]bool{}
		var names []string
		for _, w := range s.Windows {
			if !servers[w.Server] {
				servers[w.Server] = true
				names = append(names, w.Server)
			}
		}
		return withCode(ExitFindings, fmt.Errorf("watch: %d window%s with 404/503 on %s", n, plural(n, "", "s"), strings.Join(names, ", ")))
	}
	var why []string
	if s.ReadsFailed > 0 {
		why = append(why, fmt.Sprintf("%d of %d reads got nothing", s.ReadsFailed, s.Snapshots))
	}
	if len(res.Down) > 0 {
		why = append(why, strings.Join(res.Down, ", ")+" still down at the end")
	}
	if len(why) == 0 {
		return nil
	}
	return withCode(ExitIncomplete, fmt.Errorf("partial result: no 404/503 window seen, but %s", strings.Join(why, "; ")))
}

// requireReplayed refuses traffic that gave no request to replay: a verdict on zero requests
// would read as "the traffic is safe". It is an input error (the wrong file or format).
func requireReplayed(t *simulate.TrafficReport) error {
	if t == nil || t.Requests-t.NonResource-t.Unparsable > 0 {
		return nil
	}
	return fmt.Errorf("%s: no resource request to replay (%d non-resource, %d unparsable, %d malformed line(s), %d audit event(s) of other stages) — the wrong file, or --requests given an audit log (or the reverse)?",
		t.Source, t.NonResource, t.Unparsable, t.Malformed, t.Skipped)
}

// exitCodeRow says, for one command, what gives each exit code. An empty cell: the command
// never exits with that code.
type exitCodeRow struct {
	command                    string
	ok, err, incomplete, block string
}

// exitCodeTable documents exitCode's decisions, per command. Every command also exits 1 on a
// usage error (bad flag, -o format it does not support, unknown subcommand).
var exitCodeTable = []exitCodeRow{
	{"snapshot", "every apiserver was read", "usage or input error, no kubeconfig, or no apiserver could be read (nothing is written)",
		"partial: some apiserver could not be read; the snapshot is still written, with reachable: false and the error for that server; or it was sampled through a load balancer (--via-lb) and its server classes are estimated (not every identity lease seen, or a doubt)", ""},
	{"routes", "every apiserver of the snapshot was read", "usage or input error (malformed or truncated snapshot, --snapshot with a discovery flag), or no apiserver could be read",
		"partial: some apiserver could not be read; the table marks it; or it was sampled through a load balancer (--via-lb) and its server classes are estimated (not every identity lease seen, or a doubt)", ""},
	{"explain", "every apiserver asked about was evaluated", "usage or input error: unparsable request, unknown server, the server asked about unreachable, or none reachable",
		"partial: some apiserver could not be read (not with --apiserver); or it was sampled through a load balancer (--via-lb) and its server classes are estimated (not every identity lease seen, or a doubt)", ""},
	{"discovery expected", "every document predicted", "usage or input error, or the one server asked for cannot be predicted",
		"partial: some apiserver could not be read, its documents are not recorded, or its prediction is uncertain", ""},
	{"discovery diff", "no stale or missing entry", "usage or input error",
		"partial: some apiserver was not checked (could not be read, documents not recorded, prediction uncertain)", "some stale or missing entry (wins over 2)"},
	{"probe", "every observation matches the prediction", "usage or input error: bad flag, unreadable snapshot, no credentials",
		"partial: some apiserver or request could not be probed (unreachable, denied, timed out, interrupted); nothing measured disagreed", "a mismatch, or a server proxying despite the loop-prevention header (wins over 2)"},
	{"traffic", "every apiserver's counters were read twice", "usage or input error, or no apiserver's counters could be read",
		"partial: some apiserver's counters could not be read (no RBAC for /metrics, unreachable), or the interval was cut short", ""},
	{"simulate upgrade, simulate run", "simulated from observed or stated configuration; the at-risk rows are in the output",
		"usage or input error: bad scenario or step, no profile for a version, no apiserver could be read, traffic with no request to replay",
		"incomplete: the simulation rests on assumptions (ASSUMED lines: a version's default configuration), or some apiserver could not be read; or it was sampled through a load balancer (--via-lb) and its server classes are estimated (not every identity lease seen, or a doubt)", ""},
	{"preflight", "pass, or nothing at or above --fail-on", "usage or input error, no apiserver could be read, traffic with no request to replay",
		"warnings only, with --fail-on=warning (the default); or no finding but the result rests on assumptions or on server classes estimated through a load balancer (unless --fail-on=never)", "blocking findings, unless --fail-on=never"},
	{"watch", "no 404/503 window was seen (also routes --watch)", "usage or input error, no kubeconfig, or no apiserver could be read at the start",
		"partial: no window seen, but some read during the watch got nothing (every server counted as down, or, when the identity leases could not be listed, nothing learned), or some server was still down at the end",
		"some GVR that some server served answered 404 or 503 on some server for a while: the summary lists the windows (wins over 2)"},
	{"profiles list, profiles show", "printed", "usage error, or no profile for the version", "", ""},
	{"version", "printed", "usage error", "", ""},
}

// exitCodeSummary is the codes' meaning in a few lines, for the root command's help.
const exitCodeSummary = `Exit codes:
  0  success
  1  usage or input error (bad flag, malformed snapshot, unparsable request)
  2  incomplete: partial result (some apiserver could not be read; the result marks it),
     or preflight warnings only
  3  blocking findings (commands that check something say which)
  130, 143  interrupted by SIGINT or SIGTERM
See 'mvpctl help exit-codes' for each command.`

// exitCodesMarkdown is the table of docs/exit-codes.md.
func exitCodesMarkdown() string {
	var rows [][]string
	for _, r := range exitCodeTable {
		command := "`" + strings.ReplaceAll(r.command, ", ", "`, `") + "`"
		rows = append(rows, []string{command, r.ok, r.err, orDash(r.incomplete), orDash(r.block)})
	}
	var b strings.Builder
	// Writing to a strings.Builder does not fail.
	_ = output.MarkdownTable(&b, []string{"command", "0", "1", "2", "3"}, rows)
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// exitCodesText is `mvpctl help exit-codes`: exitCodeTable, one command after another.
func exitCodesText() string {
	var b strings.Builder
	b.WriteString(`mvpctl's exit codes are the same in every command:

  0  success
  1  usage or input error: nothing useful was printed; the one line on stderr says why
  2  incomplete: the result was printed, but it is partial (some apiserver, document or
     request could not be read or probed; the output marks it) or, for preflight, it has
     warnings only; stderr says which, on one line prefixed "warning:"
  3  blocking findings
  130, 143  interrupted (SIGINT, SIGTERM): requests stop, what was measured is printed
     (probe), no file is left half-written; a second signal exits at once

Every command exits 1 on a usage error: a bad flag, an -o format it does not support, an
unknown subcommand. Per command:
`)
	for _, r := range exitCodeTable {
		fmt.Fprintf(&b, "\n  %s\n", r.command)
		for code, text := range []string{r.ok, r.err, r.incomplete, r.block} {
			if text != "" {
				fmt.Fprintf(&b, "    %d  %s\n", code, text)
			}
		}
	}
	return b.String()
}

// commandExitCodes is the "Exit codes:" paragraph of one command's help.
func commandExitCodes(command string) string {
	for _, r := range exitCodeTable {
		for _, c := range strings.Split(r.command, ", ") {
			if c != command {
				continue
			}
			var b strings.Builder
			b.WriteString("Exit codes:")
			for code, text := range []string{r.ok, r.err, r.incomplete, r.block} {
				if text != "" {
					fmt.Fprintf(&b, "\n  %d  %s", code, text)
				}
			}
			return b.String()
		}
	}
	panic("no exit codes documented for " + command)
}
