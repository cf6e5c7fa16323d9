package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/render"
	"github.com/mvpctl/mvpctl/pkg/lifecycle"
	"github.com/mvpctl/mvpctl/pkg/output"
)

type apisOptions struct {
	removedIn, at, replacementFor string
	deprecated, lists             bool
	output                        *output.Flags
}

func newAPIsCmd(g *globalOptions) *cobra.Command {
	o := &apisOptions{output: cli.TableFlags(output.FormatJSON, output.FormatYAML)}
	cmd := &cobra.Command{
		Use:   "apis",
		Short: "The lifecycle of every built-in API: introduced, deprecated, removed, replacement",
		Long: `List the lifecycle Kubernetes states for each built-in API type: the release it was
introduced, deprecated and removed in, and its replacement. The table is derived from
k8s.io/api's generated lifecycle functions (zz_generated.prerelease-lifecycle.go) of every
module version it lists (-o json: "modules"); each row cites the module it was read from
(-o wide: SOURCE). A type a newer module no longer holds keeps the row of the last one that
did. preflight --manifests judges every object against it and against what the servers serve.
List kinds (DeploymentList, ...) are left out unless --lists.`,
		Example: `  mvpctl apis --removed-in 1.37
  mvpctl apis --deprecated --at 1.37
  mvpctl apis --replacement-for policy/v1beta1/poddisruptionbudgets
  mvpctl apis --removed-in 1.22 -o name`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, g) },
	}
	f := cmd.Flags()
	f.StringVar(&o.removedIn, "removed-in", "", "only the APIs Kubernetes removes in this release (1.37)")
	f.BoolVar(&o.deprecated, "deprecated", false, "only the APIs with a stated deprecation (with --at: deprecated and still served there)")
	f.StringVar(&o.at, "at", "", "judge each API's state at this release (adds a STATE column: not-yet, current, deprecated, removed)")
	f.StringVar(&o.replacementFor, "replacement-for", "", "the lifecycle and replacement of one API: GROUP/VERSION/RESOURCE (policy/v1beta1/poddisruptionbudgets) or \"APIVERSION KIND\"")
	f.BoolVar(&o.lists, "lists", false, "keep the List kinds (no resource of their own)")
	o.output.AddFlags(f)
	return cmd
}

func (o *apisOptions) run(cmd *cobra.Command, g *globalOptions) error {
	opts, err := o.output.Options(cmd.CommandPath())
	if err != nil {
		return err
	}
	q := lifecycle.Query{Deprecated: o.deprecated, ReplacementFor: o.replacementFor, Lists: o.lists}
	for _, r := range []struct {
		flag, value string
		into        *lifecycle.Release
	}{{"--removed-in", o.removedIn, &q.RemovedIn}, {"--at", o.at, &q.At}} {
		if r.value == "" {
			continue
		}
		if *r.into, err = lifecycle.ParseRelease(r.value); err != nil {
			return fmt.Errorf("%s: %w", r.flag, err)
		}
	}
	tab, err := lifecycle.Load()
	if err != nil {
		return err
	}
	rows, err := tab.Select(q)
	if err != nil {
		return err
	}
	if len(rows) == 0 && !opts.Format.Structured() {
		output.Fprintf(g.streams.ErrOut, "No APIs found.\n")
		return nil
	}
	return output.Write(g.streams.Out, render.APIs{Modules: tab.Modules, Rows: rows, At: q.At}, opts)
}
