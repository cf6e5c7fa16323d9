package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/mvpctl/mvpctl/pkg/peerdiscovery"
	"github.com/mvpctl/mvpctl/pkg/print"
)

func newDiscoveryCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "discovery",
		Short: "Predict and check each apiserver's peer-aggregated discovery (/apis, 1.35+)",
		Long: `From 1.35, a kube-apiserver with the Mixed Version Proxy built answers /apis with the merge
of its own discovery and its peers': clients that rely on discovery (garbage collector,
namespace deletion, kubectl) see every resource of the control plane through any server.

'discovery expected' predicts that document for each server from a snapshot, with the
apiserver's own merge code; 'discovery diff' compares it with what each server served when
the snapshot was taken and finds stale entries (advertised, but nothing serves them) and
missing ones (served, but not advertised). See docs/discovery.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newDiscoveryExpectedCmd(g), newDiscoveryDiffCmd(g))
	return cmd
}

type discoveryExpectedOptions struct {
	source    snapshotSource
	server    string
	output    string
	noHeaders bool
}

func newDiscoveryExpectedCmd(g *globalOptions) *cobra.Command {
	o := &discoveryExpectedOptions{output: print.FormatTable}
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

Exit codes: 0 predicted, 1 usage or input error (or the one server asked for cannot be
predicted), 2 partial: some server could not be read or its documents are not recorded.`,
		Example: `  mvpctl discovery expected --snapshot cluster.yaml
  mvpctl discovery expected --snapshot cluster.yaml --apiserver kas-b -o json > expected.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd, g) },
	}
	o.source.addFlags(cmd.Flags())
	cmd.Flags().StringVar(&o.server, "apiserver", "", "this apiserver only: its name in the snapshot or its identity lease name (--server is kubectl's connection flag)")
	cmd.Flags().StringVarP(&o.output, "output", "o", o.output, "output format: table|json|yaml")
	cmd.Flags().BoolVar(&o.noHeaders, "no-headers", false, "omit table headers")
	return cmd
}

func (o *discoveryExpectedOptions) run(cmd *cobra.Command, g *globalOptions) error {
	if err := print.CheckFormat(o.output, print.FormatTable, print.FormatJSON, print.FormatYAML); err != nil {
		return err
	}
	snap, err := o.source.load(cmd.Context(), g)
	if err != nil {
		return err
	}
	out := g.streams.Out
	if o.server != "" {
		e, err := peerdiscovery.ExpectFor(snap, o.server)
		if err != nil {
			return err
		}
		if !e.Predicted() {
			return fmt.Errorf("server %q: %s: %s", e.Server, e.Status, e.Reason)
		}
		switch o.output {
		case print.FormatJSON:
			b, err := peerdiscovery.MarshalServed(e.Items())
			if err != nil {
				return err
			}
			if _, err := out.Write(b); err != nil {
				return err
			}
			fmt.Fprintf(g.streams.ErrOut, "ETag: %s\n", e.ETag)
		case print.FormatYAML:
			if err := print.Object(out, e.Document, o.output); err != nil {
				return err
			}
			fmt.Fprintf(g.streams.ErrOut, "ETag: %s\n", e.ETag)
		default:
			if err := printExpectation(out, &e, o.noHeaders); err != nil {
				return err
			}
		}
		return uncertainResult([]peerdiscovery.Expectation{e})
	}
	es := peerdiscovery.Expect(snap)
	if print.Structured(o.output) {
		if err := print.Object(out, peerdiscovery.NewExpectedList(snap, es), o.output); err != nil {
			return err
		}
	} else {
		for i := range es {
			if i > 0 {
				fmt.Fprintln(out)
			}
			if err := printExpectation(out, &es[i], o.noHeaders); err != nil {
				return err
			}
		}
	}
	return uncertainResult(es)
}

// uncertainResult is the exit-2 error when some expectation is missing or uncertain.
func uncertainResult(es []peerdiscovery.Expectation) error {
	var parts []string
	for _, e := range es {
		switch {
		case !e.Predicted():
			parts = append(parts, fmt.Sprintf("%s (%s)", e.Server, e.Status))
		case len(e.Uncertain) > 0:
			parts = append(parts, fmt.Sprintf("%s (uncertain: %s)", e.Server, strings.Join(e.Uncertain, "; ")))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return withCode(ExitPartial, fmt.Errorf("partial result: no exact prediction for %s", strings.Join(parts, ", ")))
}

// expectationLine is the one-line heading of a server's expectation.
func expectationLine(e *peerdiscovery.Expectation) string {
	var b strings.Builder
	b.WriteString(e.Server)
	var ids []string
	if e.Version != "" {
		ids = append(ids, e.Version)
	}
	if e.ID != "" {
		ids = append(ids, e.ID)
	}
	if len(ids) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(ids, ", "))
	}
	fmt.Fprintf(&b, ": %s", e.Status)
	switch {
	case e.Status == peerdiscovery.StatusAggregated && len(e.Peers) > 0:
		var names []string
		for _, p := range e.Peers {
			names = append(names, p.Name)
		}
		sort.Strings(names)
		fmt.Fprintf(&b, ", merged with %s", strings.Join(names, ", "))
	case e.Status == peerdiscovery.StatusAggregated:
		b.WriteString(", no peers learned: its own document")
	default:
		b.WriteString(" — " + e.Reason)
	}
	if e.Predicted() {
		fmt.Fprintf(&b, "; %d groups; ETag %s", len(e.Items()), e.ETag)
	}
	return b.String()
}

func printExpectation(w io.Writer, e *peerdiscovery.Expectation, noHeaders bool) error {
	fmt.Fprintln(w, expectationLine(e))
	for _, s := range e.Skipped {
		fmt.Fprintf(w, "  not merged: %s: %s\n", s.Name, s.Reason)
	}
	for _, p := range e.Peers {
		if len(p.Excluded) > 0 {
			fmt.Fprintf(w, "  excluded from %s (CRD or aggregated API, taken from this server's own view): %s\n", p.Name, strings.Join(p.Excluded, ", "))
		}
	}
	for _, u := range e.Uncertain {
		fmt.Fprintf(w, "  uncertain: %s\n", u)
	}
	if !e.Predicted() {
		return nil
	}
	var rows [][]string
	for _, g := range e.Items() {
		for _, v := range g.Versions {
			gv := schema.GroupVersion{Group: g.Name, Version: v.Version}.String()
			mark := ""
			if v.Freshness != "" && v.Freshness != "Current" {
				mark = " (" + strings.ToLower(string(v.Freshness)) + ")"
			}
			if len(v.Resources) == 0 {
				rows = append(rows, []string{gv + mark, strings.Join(e.Sources(gv), ",")})
			}
			for _, r := range v.Resources {
				name := gv + "/" + r.Resource
				rows = append(rows, []string{name + mark, strings.Join(e.Sources(name), ",")})
			}
		}
	}
	return print.Table(w, []string{"NAME", "FROM"}, rows, noHeaders)
}

type discoveryDiffOptions struct {
	source    snapshotSource
	server    string
	output    string
	noHeaders bool
}

func newDiscoveryDiffCmd(g *globalOptions) *cobra.Command {
	o := &discoveryDiffOptions{output: print.FormatTable}
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

Exit codes: 0 no stale or missing entry, 1 usage or input error, 2 partial: some server
could not be read or its documents are not recorded, 3 some stale or missing entry.`,
		Example: `  mvpctl discovery diff --snapshot cluster.yaml
  mvpctl discovery diff -o yaml          # live: snapshot the current context's control plane first`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd, g) },
	}
	o.source.addFlags(cmd.Flags())
	cmd.Flags().StringVar(&o.server, "apiserver", "", "this apiserver only: its name in the snapshot or its identity lease name")
	cmd.Flags().StringVarP(&o.output, "output", "o", o.output, "output format: table|json|yaml")
	cmd.Flags().BoolVar(&o.noHeaders, "no-headers", false, "omit table headers")
	return cmd
}

func (o *discoveryDiffOptions) run(cmd *cobra.Command, g *globalOptions) error {
	if err := print.CheckFormat(o.output, print.FormatTable, print.FormatJSON, print.FormatYAML); err != nil {
		return err
	}
	snap, err := o.source.load(cmd.Context(), g)
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
	if print.Structured(o.output) {
		err = print.Object(g.streams.Out, rep, o.output)
	} else {
		err = printDiscoveryReport(g.streams.Out, rep, o.noHeaders)
	}
	if err != nil {
		return err
	}
	s := rep.Summary
	switch {
	case s.Stale+s.Missing > 0:
		return withCode(ExitFindings, fmt.Errorf("discovery diff: %d stale, %d missing entr%s", s.Stale, s.Missing, plural(s.Stale+s.Missing, "y", "ies")))
	case rep.Partial:
		var parts []string
		for _, d := range rep.Servers {
			switch {
			case d.Status == peerdiscovery.StatusUnreachable || d.Status == peerdiscovery.StatusNotRecorded:
				parts = append(parts, fmt.Sprintf("%s (%s)", d.Name, d.Status))
			case len(d.Uncertain) > 0:
				parts = append(parts, fmt.Sprintf("%s (uncertain)", d.Name))
			}
		}
		return withCode(ExitPartial, fmt.Errorf("partial result: not checked: %s", strings.Join(parts, ", ")))
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// etagCell says whether the expected and served ETags are equal.
func etagCell(d *peerdiscovery.ServerDiff) string {
	switch {
	case d.ETagMatch == nil:
		return ""
	case *d.ETagMatch:
		return "match"
	}
	return "differs"
}

func printDiscoveryReport(w io.Writer, rep *peerdiscovery.Report, noHeaders bool) error {
	var rows [][]string
	for i := range rep.Servers {
		d := &rep.Servers[i]
		c := d.Counts()
		other := c[peerdiscovery.ClassUnexpected] + c[peerdiscovery.ClassOrdering] + c[peerdiscovery.ClassMetadata]
		counts := []string{"", "", ""}
		if d.Status == peerdiscovery.StatusAggregated {
			counts = []string{fmt.Sprint(c[peerdiscovery.ClassStale]), fmt.Sprint(c[peerdiscovery.ClassMissing]), fmt.Sprint(other)}
		}
		peers := append([]string(nil), d.Peers...)
		sort.Strings(peers)
		rows = append(rows, append([]string{d.Name, d.Version, string(d.Status), strings.Join(peers, ","), etagCell(d)}, counts...))
	}
	if err := print.Table(w, []string{"NAME", "VERSION", "STATUS", "PEERS", "ETAG", "STALE", "MISSING", "OTHER"}, rows, noHeaders); err != nil {
		return err
	}
	var entries [][]string
	for _, d := range rep.Servers {
		for _, e := range d.Entries {
			entries = append(entries, []string{d.Name, string(e.Class), string(e.Change), e.Name(), strings.Join(e.ServedBy, ","), e.Detail})
		}
	}
	if len(entries) > 0 {
		fmt.Fprintln(w)
		if err := print.Table(w, []string{"SERVER", "CLASS", "CHANGE", "ENTRY", "SERVED-BY", "DETAIL"}, entries, noHeaders); err != nil {
			return err
		}
	}
	var notes []string
	for _, d := range rep.Servers {
		if d.Status != peerdiscovery.StatusAggregated {
			notes = append(notes, fmt.Sprintf("%s: %s", d.Name, d.Reason))
		}
		if d.ETagMatch != nil && !*d.ETagMatch {
			notes = append(notes, fmt.Sprintf("%s: ETag expected %s, served %s", d.Name, d.ExpectedETag, d.ServedETag))
		}
		for _, u := range d.Uncertain {
			notes = append(notes, fmt.Sprintf("%s: uncertain: %s", d.Name, u))
		}
		for _, n := range d.Notes {
			notes = append(notes, fmt.Sprintf("%s: %s", d.Name, n))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range notes {
			fmt.Fprintln(w, n)
		}
	}
	s := rep.Summary
	_, err := fmt.Fprintf(w, "Result: %s (%d checked; %d stale, %d missing, %d unexpected, %d ordering, %d metadata)\n",
		s.Result, s.Checked, s.Stale, s.Missing, s.Unexpected, s.Ordering, s.Metadata)
	return err
}
