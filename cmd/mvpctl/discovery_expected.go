package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/render"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/peerdiscovery"
)

type discoveryExpectedOptions struct{ discoveryQuery }

func newDiscoveryExpectedCmd(g *globalOptions) *cobra.Command {
	o := &discoveryExpectedOptions{newDiscoveryQuery(cli.NarrowTableFlags(output.FormatJSON, output.FormatYAML))}
	cmd := &cobra.Command{
		Use:   "expected [--apiserver NAME]",
		Short: "Print the default /apis document each apiserver should serve",
		Long: `Print, for each apiserver (or the one named by --apiserver), the default /apis discovery
document it should serve: on a 1.35+ server with the peer proxy built, the merge of its own
document with those of the peers it has learned (CRD and aggregated APIService versions
taken from its own view only); otherwise its own document.

-o table lists the group/versions in the expected order, with their resources and the
servers whose documents list them. With --apiserver, -o json prints the APIGroupDiscoveryList
exactly as the server should send it (byte for byte) and its expected ETag on stderr;
-o yaml prints the same document as YAML. Without --apiserver, -o json|yaml prints
kind: ExpectedDiscoveryList with every server's document and ETag.

` + commandExitCodes("discovery expected"),
		Example: `  mvpctl discovery expected --snapshot cluster.yaml
  mvpctl discovery expected --snapshot cluster.yaml --apiserver kas-b -o json > expected.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd, g) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func (o *discoveryExpectedOptions) run(cmd *cobra.Command, g *globalOptions) error {
	opts, snap, err := o.source.LoadWithOutput(cmd, g.env(), o.output)
	if err != nil {
		return err
	}
	if o.server != "" {
		e, err := peerdiscovery.ExpectFor(snap, o.server)
		if err != nil {
			return err
		}
		if !e.Predicted() {
			return fmt.Errorf("server %q: %s: %s", e.Server, e.Status, e.Reason)
		}
		if err := output.Write(g.streams.Out, render.Expectation{Expectation: &e}, opts); err != nil {
			return err
		}
		if opts.Format.Structured() {
			output.Fprintf(g.streams.ErrOut, "ETag: %s\n", e.ETag)
		}
		return expectedDiscoveryResult([]peerdiscovery.Expectation{e})
	}
	es := peerdiscovery.Expect(snap)
	if err := output.Write(g.streams.Out, render.ExpectedList{List: peerdiscovery.NewExpectedList(snap, es)}, opts); err != nil {
		return err
	}
	return expectedDiscoveryResult(es)
}
