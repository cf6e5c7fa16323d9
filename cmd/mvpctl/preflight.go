package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/pkg/clientevidence"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/preflight"
)

type preflightOptions struct {
	plan   planFlags
	failOn string
	filter cli.FilterFlags
	output *output.Flags
	accept acceptFlags
	// manifests are --manifests paths: client evidence from objects on disk.
	manifests []string
	// managedFieldsCap is how many objects of each GVR at risk a live run reads the
	// managedFields of (0: none).
	managedFieldsCap int
	// liveOnlySet are the flags set that only a live read uses (liveOnlyFlags): refused with
	// a start from a file or from profiles.
	liveOnlySet []string
	// helmReleases: read the cluster's Helm releases (Secrets) as client evidence.
	helmReleases bool
	// evidence: how far back the client evidence must look.
	evidence evidenceFlags
}

func newPreflightCmd(g *globalOptions) *cobra.Command {
	o := &preflightOptions{failOn: string(preflight.FailOnWarning), output: preflightFormats()}
	var checks strings.Builder
	for _, c := range preflight.Checks {
		fmt.Fprintf(&checks, "  %s %-26s %s\n", c.ID, c.Name, c.Title)
	}
	cmd := &cobra.Command{
		Use:   "preflight",
		Short: "CI gate before an upgrade: check the control plane and rehearse the upgrade",
		Long: `Check a control plane before an upgrade: every apiserver reachable and configured for the
Mixed Version Proxy, and — through every step of the upgrade (--to) or scenario — every GVR
that is served somewhere reachable from every apiserver. With --requests or --audit-log, real
traffic is replayed and requests that would fail, or that use APIs the target removes, are
reported. Each finding has a stable check ID, a subject, a severity, evidence and a fix
hint; docs/ci.md says how each check's severity is decided. A 404/503 window blocks when a
request that works today fails during the upgrade, or may: a replayed request meets it, a
client of its GVR is seen (the apiservers' request counters, --manifests), or every apiserver
answers its GVR at the start and neither replayed traffic nor the counters of every apiserver
show that nothing uses it over the whole --evidence-window (default 7d; counters restart with
their apiserver, so --prometheus, which keeps them, or an audit log that spans it). A window for a GVR new in the target that no replayed request uses is a warning.

Accepted risks: --ignore ID[:SUBJECT] (SUBJECT may hold * and ?), and a file of such rules,
one a line with an optional "# YYYY-MM-DD reason": --baseline FILE, or else ` + "`" + defaultAcceptFile + "`" + `
in the current directory when it exists (--no-baseline reads neither). Accepted findings are
listed apart and do not count towards the result; a rule that matches nothing is reported as
stale. --write-baseline FILE writes a baseline that accepts every current finding.

Checks:
` + checks.String() + `
` + commandExitCodes("preflight") + `
The result (pass, warning, partial, blocking) and the exit code are one verdict, printed by
every format: --fail-on=blocking exits 0 on warnings and on a result that rests on
assumptions or a provisional profile (still listed), but 2 on a partial read (an apiserver
not read); --fail-on=never always exits 0 (unless mvpctl fails).`,
		Example: `  mvpctl preflight --servers a=1.36,b=1.36,c=1.36 --to 1.37
  mvpctl preflight --snapshot cluster.yaml --to 1.37 --audit-log audit.log.gz -o junit > preflight.xml
  mvpctl preflight --to 1.37 -o markdown   # live cluster of the current context
  mvpctl preflight --snapshot cluster.yaml --to 1.37 --write-baseline .mvpctl-ignore --reason "reviewed in #42"`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, g) },
	}
	o.plan.addFlags(cmd.Flags())
	cmd.Flags().StringVar(&o.failOn, "fail-on", o.failOn, "lowest severity that fails the run: "+failOnList())
	o.accept.addFlags(cmd.Flags())
	cmd.Flags().StringArrayVar(&o.manifests, "manifests", nil, "client evidence: a YAML/JSON manifest file or directory, or - for stdin (helm template, kustomize build); an object of an API at risk blocks, named FILE:LINE (repeatable; not --static-pod-manifest, an apiserver's static pod manifest)")
	cmd.Flags().IntVar(&o.managedFieldsCap, "managed-fields-limit", clientevidence.DefaultManagedFieldsCap, "live: how many objects of each GVR at risk to read the managedFields of (metadata only, paged); a field manager that wrote one with the API at risk blocks, named; 0 reads none")
	cmd.Flags().BoolVar(&o.helmReleases, "helm-releases", false, "live: read the newest revision of every Helm release (Secrets of type helm.sh/release.v1: needs list on secrets) as client evidence; an object of an API at risk in its manifest blocks, named by release and line")
	o.evidence.addFlags(cmd.Flags())
	o.filter.AddFlags(cmd.Flags(), "check only")
	o.output.AddFlags(cmd.Flags())
	return cmd
}

func (o *preflightOptions) run(cmd *cobra.Command, g *globalOptions) error {
	opts, err := o.output.Options(cmd.CommandPath())
	if err != nil {
		return err
	}
	o.liveOnlySet = liveOnlyFlags(cmd.Flags())
	failOn, err := o.validate()
	if err != nil {
		return err
	}
	rules, err := o.accept.rules()
	if err != nil {
		return err
	}
	pl, err := o.plan.load(cmd.Context(), g)
	if err != nil {
		return err
	}
	defer pl.close()
	if err := o.evidence.readPrometheus(cmd.Context(), pl.start, g.warn); err != nil {
		return err
	}
	rep, err := preflight.Run(cmd.Context(), o.options(cmd, g, pl, failOn, rules))
	if err != nil {
		return err
	}
	for _, n := range rep.Notices() {
		g.warn(n)
	}
	if o.accept.write != "" && (opts.Format == output.FormatTable || opts.Format == output.FormatText) {
		// The baseline lists every finding, each with its message: the summary is enough here.
		pw := preflightWriter(rep)
		pw.Baseline = o.accept.write
		pw.Summary(g.streams.Out, opts.Wide())
		return o.accept.writeBaseline(g.streams.ErrOut, rep, g.now())
	}
	if err := output.Write(g.streams.Out, preflightWriter(rep), opts); err != nil {
		return err
	}
	if o.accept.write != "" {
		return o.accept.writeBaseline(g.streams.ErrOut, rep, g.now())
	}
	return preflightResult(rep.Verdict)
}

func parseFailOn(s string) (preflight.FailOn, error) {
	for _, f := range preflight.FailOnValues {
		if s == string(f) {
			return f, nil
		}
	}
	return "", fmt.Errorf("--fail-on %q: want one of %s", s, failOnList())
}

func failOnList() string {
	names := make([]string, len(preflight.FailOnValues))
	for i, f := range preflight.FailOnValues {
		names[i] = string(f)
	}
	return strings.Join(names, "|")
}
