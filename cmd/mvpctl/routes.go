package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/render"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

type routesOptions struct {
	source cli.SnapshotSource
	all    bool
	output *output.Flags
	watch  bool
	wflags watchFlags
	filter cli.FilterFlags

	// servers and proxy are --servers and --proxy: a plane started from version profiles.
	servers, proxy string
	profiles       cli.ProfileFlags
}

func newRoutesCmd(g *globalOptions) *cobra.Command {
	o := &routesOptions{output: cli.TableFlags(output.FormatJSON, output.FormatYAML, output.FormatMermaid, output.FormatDOT).Alias("text", output.FormatTable)}
	cmd := &cobra.Command{
		Use:   "routes",
		Short: "Show, per group/version/resource, what each apiserver does with a request for it",
		Long: `Show the routing table: for each group/version/resource (GVR), the outcome of a list
request on every apiserver — local, proxy→<peer>, 404 or 503.

By default only the GVRs that are not served by every reachable apiserver are shown: the
ones a rolling upgrade makes interesting. --all shows every GVR; --resource and --group
every GVR they match (as probe's do). -o mermaid|dot draws the table: each server and each
group of GVRs, with what the server does with them.

--servers NAME=VERSION,... shows the routes of a control plane started from version profiles
instead, as simulate and preflight start (--proxy says how its peer proxy is set up; what that
assumes is said on stderr).

--watch (-w) follows the live cluster instead, as 'mvpctl watch' does (its flags --interval,
--until-stable and --timeout-total apply; -o text (or table) or json, as watch's); it then
exits as watch does.

` + commandExitCodes("routes"),
		Example: `  # From a snapshot file
  mvpctl routes --snapshot cluster.yaml

  # From the live cluster of the current kubeconfig context, every GVR, as JSON
  mvpctl routes --all -o json

  # The starting routes of a rehearsal: profiles of 1.36 and 1.37, the peer proxy set up
  mvpctl routes --servers a=1.36,b=1.37 --proxy configured

  # Follow the live cluster during an upgrade: one line per change (as mvpctl watch)
  mvpctl routes -w`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, g) },
	}
	o.addFlags(cmd.Flags())
	o.output.AddFlags(cmd.Flags())
	return cmd
}

// addFlags adds the flags of routes but -o (output.Flags' own).
func (o *routesOptions) addFlags(fs *pflag.FlagSet) {
	o.source.AddFlags(fs)
	addProfileStartFlags(fs, &o.servers, &o.proxy)
	o.profiles.AddFlags(fs)
	fs.BoolVar(&o.all, "all", false, "show every GVR, also those every server serves itself")
	o.filter.AddFlags(fs, "show")
	fs.BoolVarP(&o.watch, "watch", "w", false, "follow the live cluster and print each change, as mvpctl watch does")
	o.wflags.addFlags(fs)
}

// validate checks the flags together, before anything is read: --watch's flags with --watch
// only, and --watch apart from what only a table has.
func (o *routesOptions) validate() error {
	switch {
	case o.servers != "" && o.source.File != "":
		return errors.New("give one of --servers and --snapshot")
	case o.proxy != "" && o.servers == "":
		return errors.New("--proxy sets up servers started from profiles: it goes with --servers")
	case o.servers != "" && o.watch:
		return errors.New("--watch follows the live cluster: it cannot be used with --servers")
	case o.servers != "":
		return o.source.RefuseLiveFlags("--servers")
	case !o.watch:
		if set := o.wflags.setFlags(); len(set) > 0 {
			return fmt.Errorf("%s only apply with --watch", strings.Join(set, ", "))
		}
		return o.source.Validate()
	case o.source.File != "":
		return fmt.Errorf("--watch follows the live cluster: it cannot be used with --snapshot")
	case o.all:
		return fmt.Errorf("--watch prints changes, not the table: it cannot be used with --all")
	case !o.filter.Filter().Empty():
		return fmt.Errorf("--watch follows every GVR: it cannot be used with --resource or --group")
	}
	return nil
}

func (o *routesOptions) run(cmd *cobra.Command, g *globalOptions) error {
	opts, err := g.outputOptions(cmd, o.output)
	if err != nil {
		return err
	}
	if err := o.validate(); err != nil {
		return err
	}
	if o.watch {
		return o.runWatch(cmd, g, opts)
	}
	snap, err := o.load(cmd, g)
	if err != nil {
		return err
	}
	filter := o.filter.FilterOf(snap)
	if err := filter.Unmatched(snap.Known(), "the plane"); err != nil {
		return err
	}
	table := route.NewRouter(snap).Table(o.all || !filter.Empty()).Filtered(filter, snap.Kinds())
	if len(table.Rows) == 0 && !filter.Empty() {
		return cli.NoMatch(filter)
	}
	if len(table.Rows) == 0 && !opts.Format.Structured() {
		fmt.Fprintln(g.streams.ErrOut, "Every reachable server serves every GVR itself: nothing is proxied. Use --all to list them.")
	} else if err := output.Write(g.streams.Out, render.Routes{RoutingTable: table}, opts); err != nil {
		return err
	}
	return partialResult(snap)
}

// load reads the snapshot, or starts the plane --servers describes from version profiles,
// saying on stderr what that assumes.
func (o *routesOptions) load(cmd *cobra.Command, g *globalOptions) (*snapshot.Snapshot, error) {
	if o.servers == "" {
		return o.source.Load(cmd.Context(), g.env())
	}
	if err := o.profiles.Use(g.warn); err != nil {
		return nil, err
	}
	snap, err := simulate.ProfilesStart(o.servers, o.proxy, "", g.now())
	if err != nil {
		return nil, err
	}
	sim, err := simulate.Run(snap, nil) // the start alone: what it assumes
	if err != nil {
		return nil, err
	}
	for _, a := range sim.Assumptions {
		g.warn(a)
	}
	return snap, nil
}

// runWatch is routes --watch: the loop of mvpctl watch, which prints lines, not a table.
func (o *routesOptions) runWatch(cmd *cobra.Command, g *globalOptions, opts output.Options) error {
	switch opts.Format {
	case output.FormatTable, output.FormatWide: // -o text is an alias of table
		opts.Format = output.FormatText
	case output.FormatJSON:
	default:
		return fmt.Errorf("-o %s cannot be used with --watch: want %s, as mvpctl watch", opts.Format, strings.Join(cli.StreamFormats().Formats(), "|"))
	}
	return runWatch(cmd.Context(), g, &o.source.Live, &o.wflags, opts)
}
