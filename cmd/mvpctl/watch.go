package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/render"
	"github.com/mvpctl/mvpctl/pkg/discover"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/proxytraffic"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/mvpctl/mvpctl/pkg/watch"
)

const watchLong = `Follow a live control plane, during a rolling upgrade for instance: read every apiserver
(as routes does without --snapshot), then again every --interval, and print each change as
one line with the time: a server added, down, up or on another version; a GVR's outcome on
a server (local, proxy→PEER, 404, 503); a window opened or closed — a time during which a
GVR that some server serves answered 404 or 503 on some server; an aggregated APIService
becoming unavailable (every apiserver's aggregator answers 503) or available again.

Besides every --interval, it reads again as soon as an identity lease in kube-system is
added, deleted or taken over by a new process: it watches them (list and watch on leases;
--lease-watch=false: interval only), and prints those changes too. Every --interval it also
reads each server's peer-proxy counters from /metrics (get on /metrics; --metrics=false: not)
and prints, per server and GVR, the requests proxied since the last sample and their codes;
the servers' own peer-discovery fetches are not user traffic and are only totalled.
Point the kubeconfig at the load balancer in front of the apiservers: the leases are listed
through its server, and in a rolling upgrade every server restarts.

A read that fails (a server restarting) is no error: the server shows as down. A server
whose identity lease disappears (a graceful stop deletes it on 1.35+) shows as down too, and
comes back up when it is seen again. The watch stops on Ctrl-C, after --until-stable with no
change, or after --timeout-total, and then prints a summary: every window, how long it
lasted, on which server; and the proxy traffic in all. Lines go to stdout, progress and warnings to stderr. -o json
streams one WatchEvent document per line and ends with one WatchSummary line.
`

func newWatchCmd(g *globalOptions) *cobra.Command {
	o := &watchOptions{output: cli.StreamFormats()}
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Follow a live control plane and print every routing change and 404/503 window",
		Long:  watchLong + "\n" + commandExitCodes("watch"),
		Example: `  # Follow the cluster of the current kubeconfig context during an upgrade
  mvpctl watch

  # Read every 500ms, stop after 5 minutes without change, events as JSON Lines
  mvpctl watch --interval 500ms --until-stable 5m -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := g.outputOptions(cmd, o.output)
			if err != nil {
				return err
			}
			return runWatch(cmd.Context(), g, &o.live, &o.flags, opts)
		},
	}
	o.live.AddFlags(cmd.Flags())
	o.flags.addFlags(cmd.Flags())
	o.flags.exporter.addFlags(cmd.Flags())
	o.output.AddFlags(cmd.Flags())
	return cmd
}

type watchOptions struct {
	live   cli.DiscoverFlags
	flags  watchFlags
	output *output.Flags
}

// runWatch is the command: `mvpctl watch` and `mvpctl routes --watch`.
func runWatch(ctx context.Context, g *globalOptions, live *cli.DiscoverFlags, f *watchFlags, opts output.Options) error {
	if err := f.validate(live); err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	errOut := g.streams.ErrOut
	loop := newWatchLoop(g.streams.Out, errOut, opts, time.Local)
	var leaseMetrics *watch.LeaseWatchMetrics
	if f.exporter.address != "" {
		// The exporter also runs in a pod without a kubeconfig (in-cluster configuration);
		// with neither it says how to point it.
		x, err := startExporterFor(g, &f.exporter, loop, errOut)
		if err != nil {
			return err
		}
		defer x.stop()
		leaseMetrics = x.leaseWatch
	} else if err := cli.RequireKubeconfig(g.configFlags, ""); err != nil {
		return err // before the lease watch, whose client-go error would only repeat it
	}
	loop.Read = func(ctx context.Context) (*snapshot.Snapshot, error) {
		snap, err := live.DiscoverQuiet(ctx, g.env())
		if errors.Is(err, discover.ErrLeasesNotListed) {
			return nil, fmt.Errorf("%w: %w", watch.ErrNoObservation, err)
		}
		if err == nil && !live.RequireLeases {
			// Once servers are known by their identity leases, a read that cannot list them
			// (the kubeconfig's server restarting) learns nothing, rather than reading the
			// kubeconfig's server in their stead and losing every server for one read.
			for _, s := range snap.Servers {
				live.RequireLeases = live.RequireLeases || s.IdentityLease != nil
			}
		}
		if err == nil {
			live.KnownServers = reachedEndpoints(snap, live.KnownServers)
		}
		if err == nil {
			// Discovery may switch to sampling by itself (no lease address dialled).
			err = cli.RefuseLB(snap, "watch follows each apiserver by name from one read to the next")
		}
		return snap, err
	}
	loop.Interval, loop.UntilStable, loop.Total = f.interval, f.untilStable, f.timeoutTotal
	if f.leaseWatch {
		if cfg, err := g.configFlags.ToRESTConfig(); err != nil {
			output.Fprintf(errOut, "warning: no identity-lease watch (kubeconfig: %s): re-reading every %s only\n", oneLine(err.Error()), f.interval)
		} else {
			loop.Leases = startLeaseWatch(ctx, cfg, errOut, f.interval, leaseMetrics)
			loop.Debounce = leaseDebounce
		}
	}
	if f.metrics {
		_, configFor, err := cli.ServerConfigs(g.configFlags, live.Contexts, "")
		if err != nil {
			return err
		}
		sampler, err := proxytraffic.NewSampler(proxytraffic.Options{ConfigFor: configFor, Timeout: live.Timeout, Now: g.clock},
			func(s string) { output.Fprintf(errOut, "warning: %s (said once)\n", s) })
		if err != nil {
			return err
		}
		loop.Traffic = sampler
	}
	res, err := runLoop(ctx, loop, g.streams.Out, opts, time.Local)
	if err != nil {
		return err
	}
	return watchResult(res)
}

// reachedEndpoints are the URLs of the servers snap reached, or known when it reached none:
// those a watch lists the identity leases through when the kubeconfig's server does not
// answer.
func reachedEndpoints(snap *snapshot.Snapshot, known []string) []string {
	var out []string
	for _, s := range snap.Servers {
		if s.Reachable && s.Endpoint != "" {
			out = append(out, s.Endpoint)
		}
	}
	if len(out) == 0 {
		return known
	}
	return out
}

// runLoop runs the loop and prints its summary.
func runLoop(ctx context.Context, loop *watch.Loop, out io.Writer, opts output.Options, loc *time.Location) (watch.Result, error) {
	res, err := loop.Run(ctx)
	if err != nil {
		return res, err
	}
	return res, output.WriteLine(out, render.WatchSummary{Doc: res.Summary, Loc: loc}, opts)
}

// newWatchLoop is a loop that prints its events to out and its warnings to errOut.
func newWatchLoop(out, errOut io.Writer, opts output.Options, loc *time.Location) *watch.Loop {
	return &watch.Loop{
		Clock: watch.RealClock{},
		Emit:  func(d watch.EventDoc) error { return output.WriteLine(out, render.Event{Doc: d, Loc: loc}, opts) },
		Warn:  func(s string) { output.Fprintf(errOut, "warning: %s\n", s) },
		Loc:   loc,
	}
}
