package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/render"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/peerdiscovery"
)

type discoveryDiffOptions struct{ discoveryQuery }

func newDiscoveryDiffCmd(g *globalOptions) *cobra.Command {
	o := &discoveryDiffOptions{newDiscoveryQuery(cli.TableFlags(output.FormatJSON, output.FormatYAML))}
	cmd := &cobra.Command{
		Use:   "diff",
		Short: "Compare each apiserver's served /apis with the expected peer-aggregated document",
		Long: `Compare each apiserver's default /apis document, as recorded in the snapshot, with the one
'discovery expected' predicts, and class every difference:

  stale       advertised, but no reachable apiserver serves it: a client following it gets 404
              (or 503 while a crashed peer's identity lease lives on)
  missing     served by the server or a peer it has learned, but not advertised
  unexpected  advertised and served somewhere, but not by anything the server has learned
  ordering    the same entries in another order
  metadata    the same entry with other content (verbs, subresources, kind, freshness)

The expected and served ETags are compared too. Servers without peer-aggregated discovery
(before 1.35, or without the peer proxy) are reported as such, not as mismatches.
-o json|yaml gives kind: DiscoveryReport. Works offline from a snapshot (--snapshot), or
takes a live one.

` + commandExitCodes("discovery diff"),
		Example: `  mvpctl discovery diff --snapshot cluster.yaml
  mvpctl discovery diff -o yaml          # live: snapshot the current context's control plane first`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd, g) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func (o *discoveryDiffOptions) run(cmd *cobra.Command, g *globalOptions) error {
	opts, snap, err := o.source.LoadWithOutput(cmd, g.env(), o.output)
	if err != nil {
		return err
	}
	var names []string
	if o.server != "" {
		if snap.Find(o.server) == nil {
			return fmt.Errorf("no server %q in the snapshot (servers: %s)", o.server, strings.Join(snap.ServerNames(), ", "))
		}
		names = []string{o.server}
	}
	rep := peerdiscovery.Diff(snap, names...)
	if err := output.Write(g.streams.Out, render.DiscoveryReport{Report: rep}, opts); err != nil {
		return err
	}
	return discoveryDiffResult(rep)
}
