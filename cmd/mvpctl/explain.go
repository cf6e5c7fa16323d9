package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

type explainOptions struct {
	source        snapshotSource
	server        string
	headerProxied bool
	output        *output.Flags
}

func newExplainCmd(g *globalOptions) *cobra.Command {
	o := &explainOptions{output: output.NewFlags(output.FormatText, output.FormatTable, output.FormatJSON, output.FormatYAML)}
	cmd := &cobra.Command{
		Use:   "explain METHOD PATH",
		Short: "Explain, step by step, what each apiserver does with one request",
		Long: `Explain one request the way kube-apiserver's peer-proxy filter decides it: the numbered
steps, the outcome (local, proxied, not-found or unavailable) and the HTTP status the client
gets, for one apiserver (--apiserver) or for every one.

METHOD is an HTTP method (GET, POST, PUT, PATCH, DELETE, HEAD); PATH is the request path with
an optional query, parsed by the same code the apiserver runs. -o json|yaml gives
kind: Explanation, a stable contract documented in docs/explanation.md.

` + commandExitCodes("explain"),
		Example: `  mvpctl explain --snapshot cluster.yaml GET /apis/resource.k8s.io/v1beta1/resourceclaims
  mvpctl explain --snapshot cluster.yaml --apiserver kas-b --header-proxied GET '/apis/batch/v1/jobs?watch=1'`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, g, args) },
	}
	o.source.addFlags(cmd.Flags())
	cmd.Flags().StringVar(&o.server, "apiserver", "", "explain for this apiserver only: its name in the snapshot or its identity lease name (--server is kubectl's connection flag)")
	cmd.Flags().BoolVar(&o.headerProxied, "header-proxied", false, "the request carries x-kubernetes-peer-proxied: true (the loop-prevention header)")
	o.output.AddFlags(cmd.Flags())
	return cmd
}

func (o *explainOptions) run(cmd *cobra.Command, g *globalOptions, args []string) error {
	opts, err := o.output.Options(cmd.CommandPath())
	if err != nil {
		return err
	}
	req, err := route.ParseRequest(args[0], args[1])
	if err != nil {
		return err
	}
	req.HeaderProxied = o.headerProxied
	snap, err := o.source.load(cmd.Context(), g)
	if err != nil {
		return err
	}
	e, err := route.NewRouter(snap).Explain(req, o.server)
	if err != nil {
		return err
	}
	if err := output.Write(g.streams.Out, explanationWriter{e, observedConfigs(snap)}, opts); err != nil {
		return err
	}
	if o.server != "" {
		return nil // the one server asked about was evaluated: nothing is missing
	}
	return partialResult(snap)
}

// explanationWriter prints an explanation: step by step (text), or one row per server.
type explanationWriter struct {
	e       route.Explanation
	configs map[string]string // each server's --runtime-config as observed
}

func (w explanationWriter) Object() any { return w.e }

func (w explanationWriter) WriteText(out io.Writer, o output.Options) error {
	if o.Format == output.FormatTable {
		return printExplanationTable(out, w.e, o.NoHeaders)
	}
	return printExplanation(out, w.e, w.configs)
}

func printExplanationTable(w io.Writer, e route.Explanation, noHeaders bool) error {
	var rows [][]string
	for _, d := range e.Servers {
		rows = append(rows, []string{d.Server, d.Version, string(d.Outcome), statusText(d), strings.Join(d.Peers, ","), d.Reason})
	}
	for _, u := range e.Unreachable {
		rows = append(rows, []string{u.Name, u.Version, route.Unreachable, "", "", u.Error})
	}
	return output.Table(w, []string{"SERVER", "VERSION", "OUTCOME", "STATUS", "PEERS", "REASON"}, rows, noHeaders)
}

// observedConfigs is each reachable server's --runtime-config as inferred from what it serves,
// in words.
func observedConfigs(snap *snapshot.Snapshot) map[string]string {
	out := map[string]string{}
	for i := range snap.Servers {
		if srv := &snap.Servers[i]; srv.Reachable {
			c := simulate.InferRuntimeConfig(srv)
			switch {
			case c.Unknown != "":
				out[srv.Name] = "unknown (" + c.Unknown + ")"
			case len(c.Misfits) > 0:
				some := c.Misfits[:min(3, len(c.Misfits))]
				out[srv.Name] = fmt.Sprintf("fits no runtime-config (%d GVRs do not fit, e.g. %s)", len(c.Misfits), strings.Join(some, "; "))
			case c.RuntimeConfig == "":
				out[srv.Name] = "the defaults"
			default:
				out[srv.Name] = c.RuntimeConfig
			}
		}
	}
	return out
}

func printExplanation(w io.Writer, e route.Explanation, configs map[string]string) error {
	var b strings.Builder
	info := e.Request.Info
	fmt.Fprintf(&b, "Request: %s %s", e.Request.Method, e.Request.URL())
	if e.Request.HeaderProxied {
		b.WriteString(" (with x-kubernetes-peer-proxied: true)")
	}
	b.WriteString("\n")
	if info.IsResourceRequest {
		fmt.Fprintf(&b, "Parsed:  verb=%s resource=%s", info.Verb, info.GVR())
		for _, kv := range [][2]string{{"subresource", info.Subresource}, {"namespace", info.Namespace}, {"name", info.Name}} {
			if kv[1] != "" {
				fmt.Fprintf(&b, " %s=%s", kv[0], kv[1])
			}
		}
		b.WriteString("\n")
	} else {
		b.WriteString("Parsed:  non-resource request\n")
	}
	for _, d := range e.Servers {
		id := d.ServerID
		if id == "" {
			id = "no identity"
		}
		fmt.Fprintf(&b, "\nServer %s (%s, %s)\n", d.Server, id, d.Version)
		if c := configs[d.Server]; c != "" {
			fmt.Fprintf(&b, "  runtime-config as observed: %s\n", c)
		}
		for _, s := range d.Steps {
			fmt.Fprintf(&b, "  %2d. %s\n", s.N, s.Text)
		}
		fmt.Fprintf(&b, "  Outcome: %s", d.Outcome)
		if d.Status != nil {
			fmt.Fprintf(&b, ", HTTP %s", statusText(d))
		} else if d.Outcome == mvp.Proxied {
			b.WriteString(", the client gets the peer's answer")
		}
		fmt.Fprintf(&b, " — %s\n", d.Reason)
		for _, a := range d.Alternatives {
			fmt.Fprintf(&b, "  Also possible: %s\n", a)
		}
		for i, c := range d.Causes {
			fmt.Fprintf(&b, "  Cause %d (%s): %s — to confirm: %s\n", i+1, c.Name, c.Text, c.Confirm)
		}
		if d.Inferred {
			b.WriteString("  Note: this outcome rests on inference (see the steps marked inferred or assumed).\n")
		}
	}
	for _, u := range e.Unreachable {
		fmt.Fprintf(&b, "\nServer %s: not evaluated, it could not be read (%s)\n", u.Name, u.Error)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// statusText is the HTTP status a decision produces, or what decides it.
func statusText(d route.Decision) string {
	switch {
	case d.Status != nil && d.Unavailable != "":
		return fmt.Sprintf("%d (%s)", *d.Status, d.Unavailable)
	case d.Status != nil:
		return fmt.Sprint(*d.Status)
	case d.Outcome == mvp.Proxied:
		return "from peer"
	}
	return ""
}
