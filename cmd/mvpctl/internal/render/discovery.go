package render

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/peerdiscovery"
)

// Expectation prints one server's expected /apis (discovery expected --apiserver). Its JSON is
// the document exactly as the server should send it, byte for byte, so that it can be
// compared with what it sends.
type Expectation struct{ Expectation *peerdiscovery.Expectation }

func (w Expectation) Object() any { return w.Expectation.Document }

func (w Expectation) WriteJSON(out io.Writer) error {
	b, err := peerdiscovery.MarshalServed(w.Expectation.Items())
	if err != nil {
		return err
	}
	_, err = out.Write(b)
	return err
}

func (w Expectation) WriteText(out io.Writer, o output.Options) error {
	return printExpectation(out, w.Expectation, o.NoHeaders)
}

// ExpectedList prints the expected /apis of every server (discovery expected).
type ExpectedList struct{ List peerdiscovery.ExpectedList }

func (w ExpectedList) Object() any { return w.List }

func (w ExpectedList) WriteText(out io.Writer, o output.Options) error {
	for i := range w.List.Items {
		if i > 0 {
			fmt.Fprintln(out)
		}
		if err := printExpectation(out, &w.List.Items[i], o.NoHeaders); err != nil {
			return err
		}
	}
	return nil
}

// DiscoveryReport prints a discovery diff (discovery diff).
type DiscoveryReport struct{ Report *peerdiscovery.Report }

func (w DiscoveryReport) Object() any { return w.Report }

func (w DiscoveryReport) WriteText(out io.Writer, o output.Options) error {
	return printDiscoveryReport(out, w.Report, o)
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
		output.Fprintf(&b, " (%s)", strings.Join(ids, ", "))
	}
	output.Fprintf(&b, ": %s", e.Status)
	switch {
	case e.Status == peerdiscovery.StatusAggregated && len(e.Peers) > 0:
		var names []string
		for _, p := range e.Peers {
			names = append(names, p.Name)
		}
		sort.Strings(names)
		output.Fprintf(&b, ", merged with %s", strings.Join(names, ", "))
	case e.Status == peerdiscovery.StatusAggregated:
		b.WriteString(", no peers learned: its own document")
	default:
		b.WriteString(" — " + e.Reason)
	}
	if e.Predicted() {
		output.Fprintf(&b, "; %d groups; ETag %s", len(e.Items()), e.ETag)
	}
	return b.String()
}

func printExpectation(w io.Writer, e *peerdiscovery.Expectation, noHeaders bool) error {
	output.Fprintf(w, "%s\n", expectationLine(e))
	for _, s := range e.Skipped {
		output.Fprintf(w, "  not merged: %s: %s\n", s.Name, s.Reason)
	}
	for _, p := range e.Peers {
		if len(p.Excluded) > 0 {
			output.Fprintf(w, "  excluded from %s (CRD or aggregated API, taken from this server's own view): %s\n", p.Name, strings.Join(p.Excluded, ", "))
		}
	}
	for _, u := range e.Uncertain {
		output.Fprintf(w, "  uncertain: %s\n", u)
	}
	if !e.Predicted() {
		return nil
	}
	return output.Table(w, []string{"NAME", "FROM"}, expectationRows(e), noHeaders)
}

// expectationRows are a row per group/version/resource (or group/version without resources)
// of the expected document, and the servers it comes from.
func expectationRows(e *peerdiscovery.Expectation) [][]string {
	rows := [][]string{}
	if !e.Predicted() {
		return rows
	}
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
	return rows
}

// Table is the expected document's entries and where each comes from.
func (w Expectation) Table(output.Options) ([]string, [][]string) {
	return []string{"NAME", "FROM"}, expectationRows(w.Expectation)
}

// Names are the expected document's entries.
func (w Expectation) Names() []string { return column(expectationRows(w.Expectation), 0) }

// Table is every server's expected entries, a row per server and entry.
func (w ExpectedList) Table(output.Options) ([]string, [][]string) {
	rows := [][]string{}
	for i := range w.List.Items {
		e := &w.List.Items[i]
		for _, r := range expectationRows(e) {
			rows = append(rows, append([]string{e.Server}, r...))
		}
	}
	return []string{"SERVER", "NAME", "FROM"}, rows
}

// Names are the servers.
func (w ExpectedList) Names() []string {
	names := make([]string, len(w.List.Items))
	for i := range w.List.Items {
		names[i] = w.List.Items[i].Server
	}
	return names
}

// Table is a row per server: its status and the counts of each class of difference; wide
// splits OTHER into its classes and adds the two ETags.
func (w DiscoveryReport) Table(o output.Options) ([]string, [][]string) {
	headers := discoveryReportHeaders
	if o.Wide() {
		headers = append(append([]string(nil), headers...), "UNEXPECTED", "ORDERING", "METADATA", "EXPECTED-ETAG", "SERVED-ETAG")
	}
	return headers, discoveryReportRows(w.Report, o.Wide())
}

// Names are the servers.
func (w DiscoveryReport) Names() []string {
	return column(discoveryReportRows(w.Report, false), 0)
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

var discoveryReportHeaders = []string{"NAME", "VERSION", "STATUS", "PEERS", "ETAG", "STALE", "MISSING", "OTHER"}

func discoveryReportRows(rep *peerdiscovery.Report, wide bool) [][]string {
	rows := [][]string{}
	for i := range rep.Servers {
		d := &rep.Servers[i]
		c := d.Counts()
		other := c[peerdiscovery.ClassUnexpected] + c[peerdiscovery.ClassOrdering] + c[peerdiscovery.ClassMetadata]
		counts, split := []string{"", "", ""}, []string{"", "", ""}
		if d.Status == peerdiscovery.StatusAggregated {
			counts = []string{fmt.Sprint(c[peerdiscovery.ClassStale]), fmt.Sprint(c[peerdiscovery.ClassMissing]), fmt.Sprint(other)}
			split = []string{fmt.Sprint(c[peerdiscovery.ClassUnexpected]), fmt.Sprint(c[peerdiscovery.ClassOrdering]), fmt.Sprint(c[peerdiscovery.ClassMetadata])}
		}
		peers := append([]string(nil), d.Peers...)
		sort.Strings(peers)
		row := append([]string{d.Name, d.Version, string(d.Status), strings.Join(peers, ","), etagCell(d)}, counts...)
		if wide {
			row = append(append(row, split...), d.ExpectedETag, d.ServedETag)
		}
		rows = append(rows, row)
	}
	return rows
}

func printDiscoveryReport(w io.Writer, rep *peerdiscovery.Report, o output.Options) error {
	noHeaders := o.NoHeaders
	headers, rows := DiscoveryReport{rep}.Table(o)
	if err := output.Table(w, headers, rows, noHeaders); err != nil {
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
		if err := output.Table(w, []string{"SERVER", "CLASS", "CHANGE", "ENTRY", "SERVED-BY", "DETAIL"}, entries, noHeaders); err != nil {
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
	for _, a := range rep.APIServices {
		notes = append(notes, fmt.Sprintf("APIService %s (%s): %s (%s)", a.Name, a.GroupVersion, a.Detail, a.Condition))
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range notes {
			output.Fprintf(w, "%s\n", n)
		}
	}
	s := rep.Summary
	_, err := output.Fprintf(w, "Result: %s (%d checked; %d stale, %d missing, %d unexpected, %d ordering, %d metadata)\n",
		s.Result, s.Checked, s.Stale, s.Missing, s.Unexpected, s.Ordering, s.Metadata)
	return err
}
