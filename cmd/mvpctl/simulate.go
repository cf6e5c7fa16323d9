package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/render"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/simulate"
)

type simulateOptions struct {
	upgrade bool // simulate upgrade (--to), not simulate run
	plan    planFlags
	filter  cli.FilterFlags
	output  *output.Flags
	steps   string
}

// validate checks the flags together, before anything is read.
func (o *simulateOptions) validate() error {
	switch {
	case o.upgrade && o.plan.to == "":
		return errors.New("simulate upgrade needs --to VERSION")
	case !o.upgrade && o.plan.to != "":
		return errors.New("use simulate upgrade for --to")
	case !o.filter.Filter().Empty() && (o.plan.requests != "" || len(o.plan.auditLogs) > 0):
		return errors.New("--resource and --group narrow the routing, not replayed traffic: use them without --requests or --audit-log")
	case o.steps != stepsChanged && o.steps != stepsAll:
		return fmt.Errorf("--steps %q: want %s or %s", o.steps, stepsChanged, stepsAll)
	}
	return o.plan.validate()
}

// The values of simulate's --steps: which steps' routing the text output prints.
const (
	stepsChanged = "changed"
	stepsAll     = "all"
)

func newSimulateCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "Rehearse an upgrade or failures: the routing at every step, and what fails",
		Long: `Rehearse a change to the control plane before it happens. Every step (upgrade, crash,
stop, start, gate-off, drop-peer-ca) rewrites the snapshot as docs/behaviour.md says, and
the routing table is computed after each. Rows where some server answers 404 or 503 for a
GVR that is still served somewhere are listed as AT RISK. With --requests or --audit-log,
real traffic is replayed through every step.

Start from a snapshot (--snapshot FILE, or the live cluster), or from the embedded version
profiles (--servers a=1.36,b=1.36,c=1.36; see mvpctl profiles list).`,
	}
	cmd.AddCommand(newSimulateSubCmd(g, "upgrade", "Rolling upgrade of every server to --to, one at a time",
		`  mvpctl simulate upgrade --servers a=1.36,b=1.36,c=1.36 --to 1.37
  mvpctl simulate upgrade --snapshot cluster.yaml --to 1.37 --order kas-c,kas-b,kas-a --audit-log audit.log.gz`, true))
	cmd.AddCommand(newSimulateSubCmd(g, "run", "Apply a scenario file or --step flags",
		`  mvpctl simulate run --scenario scenario.yaml
  mvpctl simulate run --servers a=1.36,b=1.37 --step crash:b`, false))
	return cli.CommandGroup(cmd)
}

func newSimulateSubCmd(g *globalOptions, use, short, example string, upgrade bool) *cobra.Command {
	o := &simulateOptions{upgrade: upgrade, output: cli.TableFlags(output.FormatJSON, output.FormatYAML, output.FormatMermaid, output.FormatDOT)}
	long := short + ".\n\n"
	if !upgrade {
		long += stepKindsHelp() + "\n\n"
	}
	cmd := &cobra.Command{
		Use: use, Short: short, Long: long + commandExitCodes("simulate "+use), Example: example, Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, g) },
	}
	o.addFlags(cmd.Flags())
	o.output.AddFlags(cmd.Flags())
	return cmd
}

// addFlags adds the flags of simulate upgrade and run but -o (output.Flags' own).
func (o *simulateOptions) addFlags(fs *pflag.FlagSet) {
	o.plan.addFlags(fs)
	o.filter.AddFlags(fs, "report only")
	fs.StringVar(&o.steps, "steps", stepsChanged, "which steps' routing the text output prints: changed (the rows each step changes) or all (every step's whole table, as -o wide)")
}

func (o *simulateOptions) run(cmd *cobra.Command, g *globalOptions) error {
	opts, err := g.outputOptions(cmd, o.output)
	if err != nil {
		return err
	}
	if err := o.validate(); err != nil {
		return err
	}
	pl, err := o.plan.load(cmd.Context(), g)
	if err != nil {
		return err
	}
	defer pl.close()
	sim, err := simulate.Run(pl.start, pl.steps)
	if err != nil {
		return err
	}
	filter := o.filter.FilterOf(pl.start)
	if err := filter.Unmatched(sim.Known(), "the plane and the profiles of the upgrade"); err != nil {
		return err
	}
	sim.Narrow(filter, pl.start.Kinds())
	rep := replay.SimulationReport{Simulation: sim}
	if len(pl.traffic) > 0 {
		if rep.Traffic, err = replay.ReplayLogs(sim, pl.traffic, pl.trafficSource, pl.trafficFormat); err != nil {
			return err
		}
		if err := replay.RequireReplayed(rep.Traffic); err != nil {
			return err
		}
	}
	if err := output.Write(g.streams.Out, render.Simulation{Report: rep, AllSteps: o.steps == stepsAll}, opts); err != nil {
		return err
	}
	return simulateResult(rep)
}
