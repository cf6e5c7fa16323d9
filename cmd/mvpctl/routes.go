package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mvpctl/mvpctl/pkg/diagram"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/route"
)

type routesOptions struct {
	source snapshotSource
	all    bool
	output *output.Flags
}

func newRoutesCmd(g *globalOptions) *cobra.Command {
	o := &routesOptions{output: output.NewFlags(output.FormatTable, output.FormatWide, output.FormatJSON, output.FormatYAML, output.FormatMermaid, output.FormatDOT)}
	cmd := &cobra.Command{
		Use:   "routes",
		Short: "Show, per group/version/resource, what each apiserver does with a request for it",
		Long: `Show the routing table: for each group/version/resource (GVR), the outcome of a list
request on every apiserver — local, proxy→<peer>, 404 or 503.

By default only the GVRs that are not served by every reachable apiserver are shown: the
ones a rolling upgrade makes interesting. --all shows every GVR. -o mermaid|dot draws the
table: each server and each group of GVRs, with what the server does with them.

` + commandExitCodes("routes"),
		Example: `  # From a snapshot file
  mvpctl routes --snapshot cluster.yaml

  # From the live cluster of the current kubeconfig context, every GVR, as JSON
  mvpctl routes --all -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, g) },
	}
	o.source.addFlags(cmd.Flags())
	cmd.Flags().BoolVar(&o.all, "all", false, "show every GVR, also those every server serves itself")
	o.output.AddFlags(cmd.Flags())
	return cmd
}

func (o *routesOptions) run(cmd *cobra.Command, g *globalOptions) error {
	opts, err := o.output.Options(cmd.CommandPath())
	if err != nil {
		return err
	}
	snap, err := o.source.load(cmd.Context(), g)
	if err != nil {
		return err
	}
	table := route.NewRouter(snap).Table(o.all)
	if len(table.Rows) == 0 && !opts.Format.Structured() {
		fmt.Fprintln(g.streams.ErrOut, "Every reachable server serves every GVR itself: nothing is proxied. Use --all to list them.")
	} else if err := output.Write(g.streams.Out, routesWriter{table}, opts); err != nil {
		return err
	}
	return partialResult(snap)
}

// routesWriter prints a routing table.
type routesWriter struct{ table route.RoutingTable }

func (w routesWriter) Object() any { return w.table }

// WriteMermaid and WriteDOT draw servers × groups of GVRs: who serves, proxies to whom, 404,
// 503 (pkg/diagram).
func (w routesWriter) WriteMermaid(out io.Writer) error {
	return diagram.Routes(w.table).WriteMermaid(out)
}
func (w routesWriter) WriteDOT(out io.Writer) error { return diagram.Routes(w.table).WriteDOT(out) }

func (w routesWriter) WriteText(out io.Writer, o output.Options) error {
	return printRoutesTable(out, w.table, o.Wide(), o.NoHeaders)
}

func printRoutesTable(w io.Writer, t route.RoutingTable, wide, noHeaders bool) error {
	headers := []string{"NAME"}
	if wide {
		headers = append(headers, "SERVED-BY")
	}
	for _, s := range t.Servers {
		headers = append(headers, output.Header(s.Name))
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
	return output.Table(w, headers, rows, noHeaders)
}
