package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/internal/cli"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/proxytraffic"
)

type trafficOptions struct {
	source      cli.SnapshotSource
	interval    time.Duration
	readTimeout time.Duration
	output      *output.Flags
}

func newTrafficCmd(g *globalOptions) *cobra.Command {
	o := &trafficOptions{output: cli.NarrowTableFlags(output.FormatJSON, output.FormatYAML)}
	cmd := &cobra.Command{
		Use:   "traffic",
		Short: "Show what the peer proxy really carried: each apiserver's proxied requests over an interval",
		Long: `Read every apiserver's peer-proxy counters from /metrics, wait --interval, read them again,
and show per server and GVR the requests it proxied to a peer and their final codes, the 503s
of endpoint resolution, and failed peer-discovery syncs (docs/behaviour.md §9).

From 1.36 the counters carry the GVR, and the server's own fetches of its peers' discovery
(counted by the same metric, with an empty GVR) are shown apart: they are not user traffic.
Before 1.36 the counters have only the code, and the two cannot be told apart.

Needs get on the non-resource URL /metrics (deploy/rbac). -o json|yaml gives kind:
ProxyTraffic.

` + commandExitCodes("traffic"),
		Example: `  mvpctl traffic --interval 30s
  mvpctl traffic --snapshot cluster.yaml -o json   # the servers of a snapshot, read live`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd, g) },
	}
	o.addFlags(cmd.Flags())
	o.output.AddFlags(cmd.Flags())
	return cmd
}

// addFlags adds the flags of traffic but -o (output.Flags' own).
func (o *trafficOptions) addFlags(fs *pflag.FlagSet) {
	o.source.AddFlags(fs)
	o.source.SendRequests()
	fs.DurationVar(&o.interval, "interval", 10*time.Second, "time between the two reads of the counters")
	fs.DurationVar(&o.readTimeout, "read-timeout", 10*time.Second, "time allowed for one read of a server's /metrics")
}

// validate checks the flags together, before anything is read.
func (o *trafficOptions) validate() error {
	if o.interval <= 0 || o.readTimeout <= 0 {
		return fmt.Errorf("--interval and --read-timeout must be positive, got %s and %s", o.interval, o.readTimeout)
	}
	return o.source.Validate()
}

func (o *trafficOptions) run(cmd *cobra.Command, g *globalOptions) error {
	if err := o.validate(); err != nil {
		return err
	}
	opts, snap, err := o.source.LoadWithOutput(cmd, g.env(), o.output)
	if err != nil {
		return err
	}
	if err := cli.RefuseLB(snap, "traffic reads each apiserver's counters"); err != nil {
		return err
	}
	base, configFor, err := cli.ServerConfigs(g.configFlags, o.source.Live.Contexts, "traffic reads the /metrics of")
	if err != nil {
		return err
	}
	g.warnLoweredTrust(base)
	if g.streams.ErrIsTerminal {
		output.Fprintf(g.streams.ErrOut, "[traffic] reading the counters of %d apiserver(s), again in %s\n", len(snap.Servers), o.interval)
	}
	rep, err := proxytraffic.Observe(cmd.Context(), snap, proxytraffic.Options{ConfigFor: configFor, Interval: o.interval, Timeout: o.readTimeout, Now: g.clock})
	if err != nil {
		return err
	}
	if err := trafficReadable(rep); err != nil {
		return err
	}
	if err := output.Write(g.streams.Out, trafficWriter{rep}, opts); err != nil {
		return err
	}
	return trafficResult(rep)
}

// trafficWriter prints a traffic report: one row per server and GVR (and code).
type trafficWriter struct{ rep *proxytraffic.Report }

func (w trafficWriter) Object() any { return w.rep }

func (w trafficWriter) WriteText(out io.Writer, o output.Options) error {
	rows, notes := w.rowsAndNotes()
	if err := output.Table(out, trafficHeaders, rows, o.NoHeaders); err != nil {
		return err
	}
	for _, n := range notes {
		output.Fprintf(out, "%s\n", n)
	}
	_, err := output.Fprintf(out, "Interval: %s to %s (%s)\n", w.rep.From.Format(time.RFC3339), w.rep.To.Format(time.RFC3339), w.rep.To.Sub(w.rep.From).Round(time.Second))
	return err
}

var trafficHeaders = []string{"SERVER", "VERSION", "GVR", "CODE", "PROXIED", "ENDPOINT-503"}

// Table is a row per server, GVR and code; it has no wide columns.
func (w trafficWriter) Table(output.Options) ([]string, [][]string) {
	rows, _ := w.rowsAndNotes()
	return trafficHeaders, rows
}

// Names are the servers, each once.
func (w trafficWriter) Names() []string {
	names := make([]string, len(w.rep.Servers))
	for i, s := range w.rep.Servers {
		names[i] = s.Name
	}
	return names
}

// rowsAndNotes are the table's rows and the notes that follow it.
func (w trafficWriter) rowsAndNotes() (rows [][]string, notes []string) {
	for _, s := range w.rep.Servers {
		if !s.Read {
			rows = append(rows, []string{s.Name, s.Version, "<unknown>", "", "", ""})
			notes = append(notes, fmt.Sprintf("%s: not read: %s", s.Name, s.Note))
			continue
		}
		errs := map[string]float64{}
		for _, e := range s.EndpointErrors {
			errs[e.GVR] += e.Count
		}
		if len(s.Proxied) == 0 && len(s.EndpointErrors) == 0 {
			rows = append(rows, []string{s.Name, s.Version, "<none>", "", "0", ""})
		}
		seen := map[string]bool{}
		for _, p := range s.Proxied {
			gvr := p.GVR
			if gvr == "" {
				gvr = "<any>" // before 1.36: no GVR labels
			}
			rows = append(rows, []string{s.Name, s.Version, gvr, p.Code, num(p.Count), countOrEmpty(errs[p.GVR], seen[p.GVR])})
			seen[p.GVR] = true
		}
		for gvr, n := range errs {
			if !seen[gvr] {
				rows = append(rows, []string{s.Name, s.Version, gvr, "", "0", num(n)})
			}
		}
		var extra []string
		switch {
		case s.ByGVR && s.DiscoveryFetches > 0:
			extra = append(extra, fmt.Sprintf("%s peer-discovery fetch(es) of its own, not user traffic", num(s.DiscoveryFetches)))
		case !s.ByGVR:
			extra = append(extra, "its counters have no GVR (before 1.36): its own peer-discovery fetches are counted with the requests")
		}
		for typ, n := range s.SyncErrors {
			extra = append(extra, fmt.Sprintf("%s failed peer-discovery sync(s) (%s)", num(n), typ))
		}
		if len(extra) > 0 {
			notes = append(notes, s.Name+": "+strings.Join(extra, "; "))
		}
	}
	return rows, notes
}

func countOrEmpty(n float64, shown bool) string {
	if n == 0 || shown {
		return ""
	}
	return num(n)
}
