package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/render"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/probe"
)

// probeOptions are `mvpctl probe`'s flags. The discovery flags (--timeout, --concurrency:
// reading the apiservers for the snapshot) are cli.SnapshotSource's; the probe's own bounds are
// --probe-concurrency, --qps, --probe-timeout and --total-timeout.
type probeOptions struct {
	source         cli.SnapshotSource
	servers        []string
	filter         cli.FilterFlags
	all            bool
	writeDryRun    bool
	proxiedHeader  string
	concurrency    int
	qps            float64
	requestTimeout time.Duration
	totalTimeout   time.Duration
	noMetrics      bool
	output         *output.Flags
}

func newProbeCmd(g *globalOptions) *cobra.Command {
	o := &probeOptions{output: cli.TableFlags(output.FormatJSON, output.FormatYAML)}
	cmd := &cobra.Command{
		Use:   "probe",
		Short: "Send real requests to every apiserver and check the routing prediction against them",
		Long: `Prove on a live cluster that the Mixed Version Proxy is wired up: take a snapshot (or read
--snapshot FILE), predict for each apiserver and each selected group/version/resource what it
does with a request, then send that request to the apiserver directly and compare.

Each request is sent twice: normally, and with the loop-prevention header
(` + strings.ToLower(mvp.LoopPreventionHeader) + `: true, or --proxied-header), which makes a server handle the request
itself. Together the two answers tell local, proxied (and which peers can have answered),
404 (the server's own "I do not serve this"), 503 (endpoint-resolution or transport), or other
(401/403/429/5xx, timeouts: reported as inconclusive or error, never as a routing outcome). A
server that forwards a request carrying the header is reported as a loop-header violation.

Read-only by default: list (limit=1; namespaced resources in the namespace of -n or the
kubeconfig context, else "default"), get of a name that cannot exist, and a watch with
timeoutSeconds=1. --write-dry-run adds a create with dryRun=All of a minimal object; nothing is
ever written otherwise. Each apiserver's /metrics (` + mvp.ReroutedMetric + `,
` + mvp.PeerProxyErrorsMetric + `) is read before and after, to show how many requests it
proxied during the probe.

Selection: by default every GVR that some reachable apiserver does not serve itself, plus one
GVR per group that all serve; --resource and --group select every matching GVR; --all every GVR.

` + commandExitCodes("probe"),
		Example: `  # Probe the current context's control plane
  mvpctl probe

  # Only batch, JSON report, also exercise write paths with dry-run creates
  mvpctl probe --group batch --write-dry-run -o json

  # From a snapshot file, slower and gentler
  mvpctl probe --snapshot cluster.yaml --qps 2 --probe-concurrency 1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd, g) },
	}
	o.addFlags(cmd.Flags())
	o.output.AddFlags(cmd.Flags())
	return cli.UsesNamespace(cmd)
}

// addFlags adds the flags of probe but -o (output.Flags' own).
func (o *probeOptions) addFlags(fs *pflag.FlagSet) {
	o.source.AddFlags(fs)
	o.source.SendRequests()
	fs.StringArrayVar(&o.servers, "apiserver", nil, "probe only this apiserver: its name in the snapshot or its identity lease name (repeatable; --server is kubectl's connection flag)")
	o.filter.AddFlags(fs, "probe")
	fs.BoolVar(&o.all, "all", false, "probe every GVR, also those every server serves itself")
	fs.BoolVar(&o.writeDryRun, "write-dry-run", false, "also send a create with dryRun=All of a minimal object (nothing is persisted)")
	fs.StringVar(&o.proxiedHeader, "proxied-header", probe.ForcedLocalHeader, "the loop-prevention header sent (value true) to make a server handle a request itself")
	fs.IntVar(&o.concurrency, "probe-concurrency", probe.DefaultConcurrency, "measurements in flight at once (each is two requests, one after the other)")
	fs.Float64Var(&o.qps, "qps", probe.DefaultQPS, "requests per second at most, all apiservers together")
	fs.DurationVar(&o.requestTimeout, "probe-timeout", probe.DefaultRequestTimeout, "time allowed for each probe request (the watches take 1s)")
	fs.DurationVar(&o.totalTimeout, "total-timeout", probe.DefaultTotalTimeout, "time allowed for the whole probe; when reached, what was measured is reported")
	fs.BoolVar(&o.noMetrics, "no-metrics", false, "do not read /metrics before and after")
}

// validate checks the flags together, before any request is sent: the probe's bounds, then
// the snapshot source's.
func (o *probeOptions) validate() error {
	switch {
	case o.concurrency < 1:
		return fmt.Errorf("--probe-concurrency must be at least 1, got %d", o.concurrency)
	case o.qps <= 0:
		return fmt.Errorf("--qps must be positive, got %g", o.qps)
	case o.requestTimeout <= 0:
		return fmt.Errorf("--probe-timeout must be positive, got %s", o.requestTimeout)
	case o.totalTimeout <= 0:
		return fmt.Errorf("--total-timeout must be positive, got %s", o.totalTimeout)
	}
	return o.source.Validate()
}

func (o *probeOptions) run(cmd *cobra.Command, g *globalOptions) error {
	outputOpts, err := o.output.Options(cmd.CommandPath())
	if err != nil {
		return err
	}
	if err := o.validate(); err != nil {
		return err
	}
	namespace, _, err := g.configFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil || namespace == "" {
		namespace = probe.DefaultNamespace
	}

	// Ctrl-C ends cmd.Context() (process.HandleSignals): the run stops cleanly and prints what was
	// measured; a second one kills.
	ctx := cmd.Context()

	base, configFor, err := cli.ServerConfigs(g.configFlags, o.source.Live.Contexts, "probe sends requests to")
	if err != nil {
		return err
	}
	snap, err := o.source.Load(ctx, g.env())
	if err != nil {
		return err
	}
	if err := cli.RefuseLB(snap, "probe sends requests to each apiserver"); err != nil {
		return err
	}
	errOut := g.streams.ErrOut
	opts := probe.Options{
		Config:         base,
		ConfigFor:      configFor,
		Servers:        o.servers,
		Selection:      probe.Selection{Resources: o.filter.Resources, Groups: o.filter.Groups, All: o.all},
		Namespace:      namespace,
		WriteDryRun:    o.writeDryRun,
		ProxiedHeader:  o.proxiedHeader,
		Concurrency:    o.concurrency,
		QPS:            o.qps,
		RequestTimeout: o.requestTimeout,
		TotalTimeout:   o.totalTimeout,
		NoMetrics:      o.noMetrics,
		Warn:           g.warn,
		Now:            g.clock,
	}
	if g.streams.ErrIsTerminal {
		opts.Progress = func(s string) { output.Fprintf(errOut, "[probe] %s\n", s) }
	}
	rep, err := probe.Run(ctx, snap, opts)
	if err != nil {
		return err
	}
	for _, s := range rep.Servers {
		if srv := snap.Find(s.Name); s.Probed || (o.source.File == "" && srv != nil && !srv.Reachable) {
			continue // probed, or discovery has just said why it could not be read
		}
		output.Fprintf(errOut, "warning: server %s (%s): not probed: %s\n", s.Name, orNone(s.Endpoint), s.Error)
	}
	if rep.Interrupted != "" {
		output.Fprintf(errOut, "warning: %s\n", rep.Interrupted)
	}

	if err := output.Write(g.streams.Out, render.Probe{Report: rep}, outputOpts); err != nil {
		return err
	}
	return probeResult(rep)
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}
