package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/render"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/proxytraffic"
)

type trafficOptions struct {
	source      cli.SnapshotSource
	interval    time.Duration
	readTimeout time.Duration
	output      *output.Flags
}

func newTrafficCmd(g *globalOptions) *cobra.Command {
	o := &trafficOptions{output: cli.NarrowTableFlags(output.FormatJSON, output.FormatYAML)}
	cmd := &cobra.Command{
		Use:   "traffic",
		Short: "Show what the peer proxy really carried: each apiserver's proxied requests over an interval",
		Long: `Read every apiserver's peer-proxy counters from /metrics, wait --interval, read them again,
and show per server and GVR the requests it proxied to a peer and their final codes, the 503s
of endpoint resolution, and failed peer-discovery syncs (docs/behaviour.md §9).

From 1.36 the counters carry the GVR, and the server's own fetches of its peers' discovery
(counted by the same metric, with an empty GVR) are shown apart: they are not user traffic.
Before 1.36 the counters have only the code, and the two cannot be told apart.

Needs get on the non-resource URL /metrics (deploy/rbac). -o json|yaml gives kind:
ProxyTraffic.

` + commandExitCodes("traffic"),
		Example: `  mvpctl traffic --interval 30s
  mvpctl traffic --snapshot cluster.yaml -o json   # the servers of a snapshot, read live`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd, g) },
	}
	o.addFlags(cmd.Flags())
	o.output.AddFlags(cmd.Flags())
	return cmd
}

// addFlags adds the flags of traffic but -o (output.Flags' own).
func (o *trafficOptions) addFlags(fs *pflag.FlagSet) {
	o.source.AddFlags(fs)
	o.source.SendRequests()
	fs.DurationVar(&o.interval, "interval", 10*time.Second, "time between the two reads of the counters")
	fs.DurationVar(&o.readTimeout, "read-timeout", 10*time.Second, "time allowed for one read of a server's /metrics")
}

// validate checks the flags together, before anything is read.
func (o *trafficOptions) validate() error {
	if o.interval <= 0 || o.readTimeout <= 0 {
		return fmt.Errorf("--interval and --read-timeout must be positive, got %s and %s", o.interval, o.readTimeout)
	}
	return o.source.Validate()
}

func (o *trafficOptions) run(cmd *cobra.Command, g *globalOptions) error {
	if err := o.validate(); err != nil {
		return err
	}
	opts, snap, err := o.source.LoadWithOutput(cmd, g.env(), o.output)
	if err != nil {
		return err
	}
	if err := cli.RefuseLB(snap, "traffic reads each apiserver's counters"); err != nil {
		return err
	}
	base, configFor, err := cli.ServerConfigs(g.configFlags, o.source.Live.Contexts, "traffic reads the /metrics of")
	if err != nil {
		return err
	}
	g.warnLoweredTrust(base)
	if g.streams.ErrIsTerminal {
		output.Fprintf(g.streams.ErrOut, "[traffic] reading the counters of %d apiserver(s), again in %s\n", len(snap.Servers), o.interval)
	}
	rep, err := proxytraffic.Observe(cmd.Context(), snap, proxytraffic.Options{ConfigFor: configFor, Interval: o.interval, Timeout: o.readTimeout, Now: g.clock})
	if err != nil {
		return err
	}
	if err := trafficReadable(rep); err != nil {
		return err
	}
	if err := output.Write(g.streams.Out, render.Traffic{Report: rep}, opts); err != nil {
		return err
	}
	return trafficResult(rep)
}
