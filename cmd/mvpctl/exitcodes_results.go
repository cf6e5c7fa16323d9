package main

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/mvpctl/mvpctl/internal/render"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/peerdiscovery"
	"github.com/mvpctl/mvpctl/pkg/preflight"
	"github.com/mvpctl/mvpctl/pkg/probe"
	"github.com/mvpctl/mvpctl/pkg/profilerecord"
	"github.com/mvpctl/mvpctl/pkg/proxytraffic"
	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/mvpctl/mvpctl/pkg/watch"
)

// snapshotResult is `mvpctl snapshot`'s result: partial when some apiserver could not be read.
func snapshotResult(snap *snapshot.Snapshot) error {
	if !snap.Partial() {
		if in := snap.Cluster.Installer; in != nil && in.KubeadmConfig == snapshot.KubeadmConfigUnreadable {
			return withCode(ExitIncomplete, fmt.Errorf("partial result: kube-system/kubeadm-config could not be read (%s); the snapshot is written without it", in.Detail))
		}
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

// explainStatuses are the statuses explain --fail-on takes: those the apiserver answers
// itself instead of serving a request.
var explainStatuses = []int{http.StatusNotFound, http.StatusServiceUnavailable}

// parseFailOnStatuses reads explain's --fail-on: HTTP statuses, each one of explainStatuses.
func parseFailOnStatuses(values []string) ([]int, error) {
	var out []int
	for _, v := range values {
		code, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || !slices.Contains(explainStatuses, code) {
			return nil, fmt.Errorf("--fail-on %q: want 404, 503 or both (404,503), the statuses an apiserver answers itself instead of serving a request", v)
		}
		out = append(out, code)
	}
	return out, nil
}

// explainResult is explain's result: blocking when some server explained answers, or may
// answer (a random peer choice, a crash window), a status of failOn; else partial when some
// server could not be read (not with --apiserver: the one server asked about was evaluated).
func explainResult(e route.Explanation, failOn []int, snap *snapshot.Snapshot, oneServer bool) error {
	var hits []string
	for _, d := range e.Servers {
		if d.Status != nil && slices.Contains(failOn, *d.Status) {
			hits = append(hits, fmt.Sprintf("%s answers %d", d.Server, *d.Status))
			continue
		}
		for _, alt := range d.AlsoPossible {
			if code := mvp.StatusOf(alt); slices.Contains(failOn, code) {
				hits = append(hits, fmt.Sprintf("%s may answer %d (%s)", d.Server, code, alt))
				break
			}
		}
	}
	if len(hits) > 0 {
		var codes []string
		for _, c := range failOn {
			codes = append(codes, strconv.Itoa(c))
		}
		return withCode(ExitFindings, fmt.Errorf("explain: %s (--fail-on %s)", strings.Join(hits, "; "), strings.Join(codes, ",")))
	}
	if oneServer {
		return nil
	}
	return partialResult(snap)
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

func lbIncompleteReason(lb *snapshot.LBSampling) string { return lb.Incomplete() }

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

// preflightResult is `mvpctl preflight`'s result: its verdict's exit class (preflight.Decide
// decides it, at the --fail-on threshold), with the verdict's reason.
func preflightResult(v preflight.Verdict) error {
	code := verdictExitCode(v)
	if code == ExitOK {
		return nil
	}
	return withCode(code, fmt.Errorf("preflight: %s, %s: %s", v.Result, render.VerdictExit(v, code), v.Reason))
}

// verdictExitCode is the exit code of a preflight verdict's exit class.
func verdictExitCode(v preflight.Verdict) int {
	switch v.Exit {
	case preflight.ExitBlocking:
		return ExitFindings
	case preflight.ExitIncomplete:
		return ExitIncomplete
	}
	return ExitOK
}

// simulateResult is `mvpctl simulate`'s result: incomplete when it rests on assumptions or
// on a snapshot in which some apiserver could not be read. The at-risk rows are part of the
// output, not a verdict (preflight is the gate).
func simulateResult(rep replay.SimulationReport, start *snapshot.Snapshot) error {
	var why []string
	if p := provisionalReason(rep.Simulation.Provisional); p != "" {
		why = append(why, p)
	}
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
// An interrupted watch exits 130/143 whatever this says (process.HandleSignals).
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

// profileRecordResult is `mvpctl profiles record`'s result: incomplete when something was not
// captured or the apiserver shows it is not at its defaults (each said on stderr before).
func profileRecordResult(rep profilerecord.Report) error {
	if len(rep.NotCaptured) == 0 && len(rep.NotDefault) == 0 {
		return nil
	}
	return withCode(ExitIncomplete, fmt.Errorf("profile recorded with caveats: %d not captured, %d signs of a configuration other than the defaults (above)", len(rep.NotCaptured), len(rep.NotDefault)))
}
