package main

import (
	"fmt"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/print"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/spf13/cobra"
)

type routesOptions struct {
	source    snapshotSource
	all       bool
	output    string
	noHeaders bool
}

func newRoutesCmd(g *globalOptions) *cobra.Command {
	o := &routesOptions{output: print.FormatTable}
	cmd := &cobra.Command{
		Use:   "routes",
		Short: "Show, per group/version/resource, what each apiserver does with a request for it",
		Long: `Show the routing table: for each group/version/resource (GVR), the outcome of a list
request on every apiserver — local, proxy→<peer>, 404 or 503.

By default only the GVRs that are not served by every reachable apiserver are shown: the
ones a rolling upgrade makes interesting. --all shows every GVR.`,
		Example: `  # From a snapshot file
  mvpctl routes --snapshot cluster.yaml

  # From the live cluster of the current kubeconfig context, every GVR, as JSON
  mvpctl routes --all -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, g) },
	}
	o.source.addFlags(cmd.Flags())
	cmd.Flags().BoolVar(&o.all, "all", false, "show every GVR, also those every server serves itself")
	cmd.Flags().StringVarP(&o.output, "output", "o", o.output, "output format: table|wide|json|yaml")
	cmd.Flags().BoolVar(&o.noHeaders, "no-headers", false, "omit table headers")
	return cmd
}

func (o *routesOptions) run(cmd *cobra.Command, g *globalOptions) error {
	if err := print.CheckFormat(o.output, print.FormatTable, print.FormatWide, print.FormatJSON, print.FormatYAML); err != nil {
		return err
	}
	snap, err := o.source.load(cmd.Context(), g)
	if err != nil {
		return err
	}
	if err := requireReachable(snap); err != nil {
		return err
	}
	table := route.NewRouter(snap).Table(o.all)
	if print.Structured(o.output) {
		if err := print.Object(g.streams.Out, table, o.output); err != nil {
			return err
		}
	} else {
		if len(table.Rows) == 0 {
			fmt.Fprintln(g.streams.ErrOut, "Every reachable server serves every GVR itself: nothing is proxied. Use --all to list them.")
		} else if err := printRoutesTable(g, table, o.output == print.FormatWide, o.noHeaders); err != nil {
			return err
		}
	}
	return partialResult(snap)
}

func printRoutesTable(g *globalOptions, t route.RoutingTable, wide, noHeaders bool) error {
	headers := []string{"NAME"}
	if wide {
		headers = append(headers, "SERVED-BY")
	}
	for _, s := range t.Servers {
		headers = append(headers, print.Header(s.Name))
	}
	rows := make([][]string, 0, len(t.Rows))
	for _, r := range t.Rows {
		row := []string{r.Name}
		if wide {
			row = append(row, strings.Join(r.ServedBy, ","))
		}
		for _, c := range r.Cells {
			text := c.Text
			if wide && c.Unavailable != "" {
				text += " (" + c.Unavailable + ")"
			}
			if wide && c.Inferred {
				text += " [inferred]"
			}
			row = append(row, text)
		}
		rows = append(rows, row)
	}
	return print.Table(g.streams.Out, headers, rows, noHeaders)
}
