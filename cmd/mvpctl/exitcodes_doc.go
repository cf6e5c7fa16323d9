package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mvpctl/mvpctl/pkg/basis"
	"github.com/mvpctl/mvpctl/pkg/output"
)

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
		"partial: the identity leases in kube-system could not be listed (forbidden, an error, the 4 MiB bound): the servers found otherwise are written, and cluster.identityLeases records why, as other apiservers and down ones are not known; or some apiserver could not be read; the snapshot is still written, with reachable: false and the error for that server; or kube-system/kubeadm-config exists but is malformed or unreadable (written without it; a 403 is a warning only); or it was sampled through a load balancer (--via-lb) and its server classes are estimated (not every identity lease seen, or a doubt)", ""},
	{"routes", "every apiserver of the snapshot was read", "usage or input error (malformed or truncated snapshot, --snapshot with a discovery flag), or no apiserver could be read",
		"partial: the snapshot's identity leases could not be listed (said first); or some apiserver could not be read; the table marks it; or it was sampled through a load balancer (--via-lb) and its server classes are estimated (not every identity lease seen, or a doubt)", ""},
	{"explain", "every apiserver asked about was evaluated", "usage or input error: unparsable request, unknown server, the server asked about unreachable, or none reachable",
		"partial: the snapshot's identity leases could not be listed, or some apiserver could not be read (neither with --apiserver); or it was sampled through a load balancer (--via-lb) and its server classes are estimated (not every identity lease seen, or a doubt)",
		"with --fail-on 404,503: some apiserver asked about answers, or may answer (a random peer choice, a crash window), one of those statuses (wins over 2)"},
	{"discovery expected", "every document predicted", "usage or input error, or the one server asked for cannot be predicted",
		"partial: some apiserver could not be read, its documents are not recorded, or its prediction is uncertain", ""},
	{"discovery diff", "no stale or missing entry", "usage or input error",
		"partial: some apiserver was not checked (could not be read, documents not recorded, prediction uncertain)", "some stale or missing entry (wins over 2)"},
	{"probe", "every observation matches the prediction", "usage or input error: bad flag, unreadable snapshot, no credentials",
		"partial: some apiserver or request could not be probed (unreachable, denied, timed out, interrupted); nothing measured disagreed", "a mismatch, or a server proxying despite the loop-prevention header (wins over 2)"},
	{"traffic", "every apiserver's counters were read twice", "usage or input error, or no apiserver's counters could be read",
		"partial: some apiserver's counters could not be read (no RBAC for /metrics, unreachable), or the interval was cut short", ""},
	{"simulate upgrade, simulate run", "simulated from observed or stated configuration; the at-risk rows are in the output",
		"usage or input error: bad scenario or step, no profile for a version, a bad profile file, no apiserver could be read, traffic with no request to replay",
		"incomplete: the simulation rests on a provisional profile (" + basis.ProvisionalMark + " lines: a release derived from its published modules, docs/profiles.md) or on assumptions (" + basis.AssumedMark + " lines: a version's default configuration), or the snapshot's identity leases could not be listed, or some apiserver could not be read; or it was sampled through a load balancer (--via-lb) and its server classes are estimated (not every identity lease seen, or a doubt)", ""},
	{"preflight", "result pass; or warning (warning findings, or a result that rests on assumptions or a provisional profile) with --fail-on=blocking; or any result with --fail-on=never (accepted findings do not count; stale accept rules are listed); --write-baseline: the file was written",
		"usage or input error, no apiserver could be read, traffic with no request to replay, a malformed accept rule (--ignore, --baseline, .mvpctl-ignore: the error names the file and line), a --resource or --group that matches nothing (the error names the closest), or --write-baseline could not write its file",
		"result warning with --fail-on=warning (the default); or result partial (no blocking finding, but some apiserver was not read, the identity leases could not be listed, or the server classes are estimated through a load balancer, or a --manifests document does not parse), also with --fail-on=blocking", "result blocking: blocking findings, unless --fail-on=never"},
	{"watch", "no 404/503 window was seen (also routes --watch)", "usage or input error, no kubeconfig, or no apiserver could be read at the start",
		"partial: no window seen, but some read during the watch got nothing (every server counted as down, or, when the identity leases could not be listed, nothing learned), some read could not list the identity leases (the servers found otherwise were read), or some server was still down at the end",
		"some GVR that some server served answered 404 or 503 on some server for a while: the summary lists the windows (wins over 2)"},
	{"profiles list, profiles show", "printed", "usage or input error: a profile file (--profile, the profile directory) that cannot be read or is not a profile, or no profile for the version", "`profiles show` of a provisional profile (derived from published modules, docs/profiles.md)", ""},
	{"profiles record", "recorded: everything captured, and nothing shows the apiserver is not at its defaults", "usage or input error: no kubeconfig, the apiserver could not be read (or more than one was), the profile could not be written",
		"recorded with a caveat, said on stderr: something not captured (the full set without --api-all-endpoint, feature gates without get on /metrics, the peer-proxy gate's default) or signs of a non-default configuration (alpha or beta APIs served, feature gates off their default)", ""},
	{"apis", "printed (also when no API matches: \"No APIs found.\" on stderr)", "usage error, a --removed-in or --at that is not a release, or a --replacement-for that names no API k8s.io/api states a lifecycle for", "", ""},
	{"version, options", "printed", "usage error", "", ""},
}

// exitCodeSummary is the codes' meaning in a few lines, for the root command's help.
const exitCodeSummary = `Exit codes:
  0  success
  1  usage or input error (bad flag, malformed snapshot, unparsable request)
  2  incomplete: partial result (some apiserver could not be read, or the identity leases
     could not be listed; the result says it),
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
		fmt.Fprintf(&b, "\n  %s", r.command)
		r.writeCodes(&b, "\n    ")
		b.WriteString("\n")
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
			r.writeCodes(&b, "\n  ")
			return b.String()
		}
	}
	panic("no exit codes documented for " + command)
}

// writeCodes writes each code the row documents, with its text, after prefix.
func (r exitCodeRow) writeCodes(b *strings.Builder, prefix string) {
	for code, text := range []string{r.ok, r.err, r.incomplete, r.block} {
		if text != "" {
			fmt.Fprintf(b, "%s%d  %s", prefix, code, text)
		}
	}
}

// newExitCodesTopic is `mvpctl help exit-codes`: a help topic, not a command.
func newExitCodesTopic() *cobra.Command {
	topic := &cobra.Command{
		Use:   "exit-codes",
		Short: "What each exit code of each command means",
		Long:  exitCodesText(),
	}
	// The topic's help is the table alone, without the usage and flags of a command.
	topic.SetHelpFunc(func(c *cobra.Command, _ []string) { fmt.Fprint(c.OutOrStdout(), c.Long) })
	return topic
}
