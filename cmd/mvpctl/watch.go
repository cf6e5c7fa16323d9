package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/pkg/discover"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/proxytraffic"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/mvpctl/mvpctl/pkg/watch"
)

// Bounds of --interval: a full read of every apiserver costs several requests per server.
const (
	defaultWatchInterval = 2 * time.Second
	minWatchInterval     = 200 * time.Millisecond
)

// watchFlags are the flags of the watch loop, shared by `mvpctl watch` and `routes --watch`.
type watchFlags struct {
	interval     time.Duration
	untilStable  time.Duration
	timeoutTotal time.Duration
	leaseWatch   bool
	metrics      bool
	exporter     exporterFlags // `mvpctl watch` only (watch_exporter.go)
	fs           *pflag.FlagSet
}

var watchFlagNames = []string{"interval", "until-stable", "timeout-total", "lease-watch", "metrics"}

func (w *watchFlags) addFlags(fs *pflag.FlagSet) {
	w.fs = fs
	fs.DurationVar(&w.interval, "interval", defaultWatchInterval, "time between the starts of two reads of the control plane (at least 200ms)")
	fs.DurationVar(&w.untilStable, "until-stable", 0, "stop once nothing has changed for this long (0: run until interrupted)")
	fs.DurationVar(&w.timeoutTotal, "timeout-total", 0, "stop after this long in all (0: no limit)")
	fs.BoolVar(&w.leaseWatch, "lease-watch", true, "watch the identity leases in kube-system and read the plane again at once when one changes (list and watch on leases); with --lease-watch=false only every --interval")
	fs.BoolVar(&w.metrics, "metrics", true, "read each apiserver's peer-proxy counters from /metrics every --interval and print what was proxied (get on /metrics)")
}

// validate checks the flags of a watch (watch, routes --watch) together with its live read's.
func (w *watchFlags) validate(live *cli.DiscoverFlags) error {
	switch {
	case w.interval < minWatchInterval:
		return fmt.Errorf("--interval must be at least %s, got %s", minWatchInterval, w.interval)
	case w.untilStable < 0 || w.timeoutTotal < 0:
		return fmt.Errorf("--until-stable and --timeout-total cannot be negative")
	case live.ViaLB:
		return errors.New("--via-lb cannot be used with watch: watch follows each apiserver by name from one read to the next, and the server classes of a sampling are estimated anew each time")
	}
	if err := w.exporter.validate(); err != nil {
		return err
	}
	return live.Validate()
}

// setFlags lists the watch flags given on the command line.
func (w *watchFlags) setFlags() []string {
	var set []string
	for _, n := range watchFlagNames {
		if w.fs != nil && w.fs.Changed(n) {
			set = append(set, "--"+n)
		}
	}
	return set
}

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
	if f.exporter.address != "" {
		// The exporter also runs in a pod without a kubeconfig (in-cluster configuration);
		// with neither it says how to point it.
		x, err := startExporterFor(g, &f.exporter, loop, errOut)
		if err != nil {
			return err
		}
		defer x.stop()
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
			loop.Leases = startLeaseWatch(ctx, cfg, errOut, f.interval)
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
	return res, output.WriteLine(out, summaryWriter{doc: res.Summary, loc: loc}, opts)
}

// leaseDebounce is how long after an identity-lease change the watch reads the plane: a
// restart deletes and creates a lease within moments, and one read should see both.
const leaseDebounce = 150 * time.Millisecond

// newWatchLoop is a loop that prints its events to out and its warnings to errOut.
func newWatchLoop(out, errOut io.Writer, opts output.Options, loc *time.Location) *watch.Loop {
	return &watch.Loop{
		Clock: watch.RealClock{},
		Emit:  func(d watch.EventDoc) error { return output.WriteLine(out, eventLine{doc: d, loc: loc}, opts) },
		Warn:  func(s string) { output.Fprintf(errOut, "warning: %s\n", s) },
		Loc:   loc,
	}
}

// startLeaseWatch follows the identity leases through cfg's server until ctx ends, and
// delivers the latest set of leases (a set that was not taken yet is replaced by a newer
// one: each is whole). A failure is said once, until the watch works again.
func startLeaseWatch(ctx context.Context, cfg *rest.Config, errOut io.Writer, interval time.Duration) <-chan []watch.Lease {
	ch := make(chan []watch.Lease, 1)
	var mu sync.Mutex
	said := false
	w := &discover.LeaseWatch{
		Config: cfg,
		OnLeases: func(set []discover.IdentityLease) {
			leases := make([]watch.Lease, 0, len(set))
			for _, l := range set {
				leases = append(leases, watch.Lease{Name: l.Name, Hostname: l.Hostname, Address: l.Address, Holder: l.Holder, Renew: l.Renew, Duration: l.Duration})
			}
			select {
			case ch <- leases:
			default:
				select {
				case <-ch:
				default:
				}
				ch <- leases
			}
		},
		OnFailure: func(err error, _ time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			if !said {
				said = true
				output.Fprintf(errOut, "warning: cannot watch the identity leases in kube-system (%s): re-reading every %s only, and trying again\n", err, interval)
			}
		},
		OnRecovered: func() {
			mu.Lock()
			defer mu.Unlock()
			if said {
				said = false
				fmt.Fprintln(errOut, "[watch] watching the identity leases again")
			}
		},
	}
	go w.Run(ctx)
	return ch
}
