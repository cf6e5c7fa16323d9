package main

import (
	"github.com/mvpctl/mvpctl/pkg/lifecycle"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/render"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/profile"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/simulate"
)

type explainOptions struct {
	source        cli.SnapshotSource
	server        string
	headerProxied bool
	verbose       bool
	whyNot        bool
	filter        cli.FilterFlags
	output        *output.Flags
	profiles      cli.ProfileFlags // for what a server's version can serve (--runtime-config inference)
	failOn        []string         // --fail-on: HTTP statuses (404, 503) that make explain exit 3
	steps         []string         // --step: what-if steps applied to the snapshot first (simulate run's)
}

func newExplainCmd(g *globalOptions) *cobra.Command {
	o := &explainOptions{output: output.NewFlags(append(append([]output.Format{output.FormatText, output.FormatTable}, output.TableFormats...), output.FormatJSON, output.FormatYAML, output.FormatMermaid, output.FormatDOT)...)}
	cmd := &cobra.Command{
		Use:   "explain (GVR | RESOURCE[.VERSION][.GROUP] | METHOD PATH)",
		Short: "Explain, step by step, what each apiserver does with one request",
		Long: `Explain one request the way kube-apiserver's peer-proxy filter decides it, for one
apiserver (--apiserver) or for every one: first the answer the client gets (served locally,
proxied to which peer, 404 or 503) and why, then the rules that led to it, each with the
Kubernetes versions it comes from. --why-not says what would make a 404 or 503 succeed;
--verbose adds the decision in the apiserver's own terms (era, identity, routing key).

` + explainForms + `

METHOD is an HTTP method (GET, POST, PUT, PATCH, DELETE, HEAD); PATH is the request path with
an optional query, parsed by the same code the apiserver runs. -o json|yaml gives
kind: Explanation, a stable contract documented in docs/explanation.md. -o mermaid|dot draws
the request's path: client, server, proxy filter, peer, and the 404/503 ends.

` + commandExitCodes("explain"),
		Example: `  mvpctl explain --snapshot cluster.yaml batch/v1/jobs
  mvpctl explain --snapshot cluster.yaml -n team-a jobs.batch
  mvpctl explain --snapshot cluster.yaml GET /apis/resource.k8s.io/v1beta1/resourceclaims
  mvpctl explain --snapshot cluster.yaml --fail-on 404,503 cj   # exit 3 if some server answers 404 or 503
  mvpctl explain --snapshot cluster.yaml --apiserver kas-b --header-proxied GET '/apis/batch/v1/jobs?watch=1'`,
		Args: cobra.ArbitraryArgs, // parseExplainArgs says which forms it takes
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, g, args) },
	}
	o.addFlags(cmd.Flags())
	o.output.AddFlags(cmd.Flags())
	return cli.UsesNamespace(cmd)
}

// addFlags adds the flags of explain but -o (output.Flags' own).
func (o *explainOptions) addFlags(fs *pflag.FlagSet) {
	o.source.AddFlags(fs)
	o.profiles.AddFlags(fs)
	cli.AddAPIServerFlag(fs, &o.server, "explain for this")
	fs.BoolVar(&o.headerProxied, "header-proxied", false, "the request carries "+strings.ToLower(mvp.LoopPreventionHeader)+": true (the loop-prevention header)")
	fs.BoolVar(&o.verbose, "verbose", false, "also print the decision in the apiserver's own terms: era, identities, routing key, caches (text output)")
	fs.BoolVar(&o.whyNot, "why-not", false, "for a 404 or 503, print what would make the request succeed (text and table output)")
	o.filter.AddFlags(fs, "choose among")
	addStepFlag(fs, &o.steps, "; applied to the snapshot first: the request is explained right after the last, a crash at the kill with its timeline")
	fs.StringSliceVar(&o.failOn, "fail-on", nil, "exit 3 when some server answers, or may answer, one of these HTTP statuses: 404, 503 (comma-separated)")
}

// validate checks the arguments and flags together, before anything is read: what is
// explained (parseExplainArgs), --fail-on's statuses, and the snapshot source.
func (o *explainOptions) validate(args []string, namespace string) (explainArgs, []int, []simulate.Step, error) {
	a, err := parseExplainArgs(args, o.filter.Filter(), namespace)
	if err != nil {
		return a, nil, nil, err
	}
	failOn, err := parseFailOnStatuses(o.failOn)
	if err != nil {
		return a, nil, nil, err
	}
	steps, err := simulate.ParseSteps(o.steps)
	if err != nil {
		return a, nil, nil, err
	}
	return a, failOn, steps, o.source.Validate()
}

func (o *explainOptions) run(cmd *cobra.Command, g *globalOptions, args []string) error {
	opts, err := g.outputOptions(cmd, o.output)
	if err != nil {
		return err
	}
	a, failOn, steps, err := o.validate(args, g.configFlags.Overrides.Context.Namespace)
	if err != nil {
		return err
	}
	if err := o.profiles.Use(g.warn); err != nil {
		return err
	}
	snap, err := o.source.Load(cmd.Context(), g.env())
	if err != nil {
		return err
	}
	observed := snap
	if snap, err = simulate.WhatIf(snap, steps); err != nil {
		return err
	}
	req, err := a.request(snap, func(s string) { output.Fprintf(g.streams.ErrOut, "note: %s\n", s) })
	if err != nil {
		return err
	}
	req.HeaderProxied = o.headerProxied
	e, err := route.NewRouter(snap).WithCapabilities(profile.Capabilities()).Explain(req, o.server)
	if err != nil {
		return err
	}
	for _, st := range steps {
		e.WhatIf = append(e.WhatIf, st.String())
	}
	if req.Info.IsResourceRequest {
		if r, ok := lifecycle.MustLoad().LookupGVR(req.Info.GVR().String()); ok {
			e.Lifecycle = &r
		}
	}
	if err := output.Write(g.streams.Out, render.Explanation{Explanation: e, Configs: simulate.RuntimeConfigs(snap), Verbose: o.verbose, WhyNot: o.whyNot, Down: render.TakenDown(observed, snap)}, opts); err != nil {
		return err
	}
	return explainResult(e, failOn, observed, o.server != "") // a server a step took down was read
}
