package render

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/diagram"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// Explanation prints an explanation (explain): step by step (text), or one row per server;
// drawn, the request's path on each server.
type Explanation struct {
	Explanation route.Explanation
	// Configs are each server's --runtime-config in words, as stated or observed.
	Configs map[string]simulate.RuntimeConfigView
	Verbose bool            // --verbose: the decision in the apiserver's terms too
	WhyNot  bool            // --why-not: what would make a 404 or 503 succeed
	Down    map[string]bool // the servers --step took down: read, then not evaluated
}

func printExplanation(w io.Writer, ew Explanation, o output.Options) error {
	e, configs, verbose, whyNot := ew.Explanation, ew.Configs, ew.Verbose, ew.WhyNot
	var b strings.Builder
	info := e.Request.Info
	output.Fprintf(&b, "Request: %s %s", e.Request.Method, e.Request.URL())
	if e.Request.HeaderProxied {
		b.WriteString(" (with " + strings.ToLower(mvp.LoopPreventionHeader) + ": true)")
	}
	b.WriteString("\n")
	if info.IsResourceRequest {
		output.Fprintf(&b, "Parsed:  verb=%s resource=%s", info.Verb, info.GVR())
		for _, kv := range [][2]string{{"subresource", info.Subresource}, {"namespace", info.Namespace}, {"name", info.Name}} {
			if kv[1] != "" {
				output.Fprintf(&b, " %s=%s", kv[0], kv[1])
			}
		}
		b.WriteString("\n")
	} else {
		b.WriteString("Parsed:  non-resource request\n")
	}
	if l := lifecycleLine(e.Lifecycle); l != "" {
		output.Fprintf(&b, "%s\n", l)
	}
	if len(e.WhatIf) > 0 {
		output.Fprintf(&b, "What if: %s (applied to the snapshot, in order; the answers are those right after)\n", strings.Join(e.WhatIf, ", then "))
	}
	for _, d := range e.Servers {
		output.Fprintf(&b, "\n%s: %s\n", d.Server, o.Paint(d.Plain.Answer, outcomeTone(d.Outcome)))
		output.Fprintf(&b, "  %s runs %s", d.Server, d.Version)
		if c, ok := configs[d.Server]; ok {
			words := c.Brief()
			if verbose {
				words = c.Full()
			}
			output.Fprintf(&b, ", --runtime-config %s", words)
		}
		b.WriteString("\n")
		for i, s := range d.Plain.Steps {
			output.Fprintf(&b, "  %2d. %s\n", i+1, s)
		}
		for _, h := range d.Hazards {
			output.Fprintf(&b, "  Warning: %s\n", h)
		}
		for _, a := range d.Plain.Alternatives {
			output.Fprintf(&b, "  Also possible: %s\n", a)
		}
		if len(d.Plain.Timeline) > 0 {
			output.Fprintf(&b, "  %s\n", d.Plain.TimelineIntro)
			for i, s := range d.Plain.Timeline {
				output.Fprintf(&b, "    %d. %s\n", i+1, s)
			}
		}
		if d.Inferred {
			b.WriteString("  Note: this answer rests on inference or on an assumed configuration (the steps say which).\n")
		}
		if len(d.Plain.WhyNot) > 0 {
			if whyNot {
				b.WriteString("  What would make it succeed:\n")
				for _, f := range d.Plain.WhyNot {
					output.Fprintf(&b, "    - %s\n", f)
				}
			} else {
				b.WriteString("  (--why-not says what would make it succeed)\n")
			}
		}
		if verbose {
			printDecisionDetail(&b, d)
		}
	}
	for _, u := range e.Unreachable {
		output.Fprintf(&b, "\n%s: not evaluated — %s\n", u.Name, ew.notEvaluated(u))
		if verbose {
			output.Fprintf(&b, "  identity %s, %s, era %s = %s\n", idOrNone(u.ID), u.Version, u.Era, u.Era.Versions())
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// printDecisionDetail is --verbose: the decision as the apiserver's code makes it, in its
// terms (era, identities, routing key), as -o json has it.
func printDecisionDetail(b *strings.Builder, d route.Decision) {
	output.Fprintf(b, "  In the apiserver's terms (identity %s, era %s = %s; docs/explanation.md defines the eras):\n", idOrNone(d.ServerID), d.Era, d.Era.Versions())
	for _, s := range d.Steps {
		output.Fprintf(b, "    %2d. %s\n", s.N, s.Text)
	}
	output.Fprintf(b, "    Outcome: %s", d.Outcome)
	if d.Status != nil {
		output.Fprintf(b, ", HTTP %s", statusText(d))
	}
	output.Fprintf(b, " — %s\n", d.Reason)
	for _, a := range d.Alternatives {
		output.Fprintf(b, "    Alternative: %s\n", a)
	}
	for i, c := range d.Causes {
		output.Fprintf(b, "    Cause %d (%s): %s — to confirm: %s\n", i+1, c.Name, c.Text, c.Confirm)
	}
}

func idOrNone(id string) string {
	if id == "" {
		return "none"
	}
	return id
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

// TakenDown are the servers reachable in observed and not in after: those explain's --step
// took down (Explanation.Down).
func TakenDown(observed, after *snapshot.Snapshot) map[string]bool {
	down := map[string]bool{}
	for _, srv := range after.Servers {
		if was := observed.Find(srv.Name); !srv.Reachable && was != nil && was.Reachable {
			down[srv.Name] = true
		}
	}
	return down
}

// notEvaluated says why server u was not evaluated: a step took it down, or it could not
// be read.
func (w Explanation) notEvaluated(u route.ServerSummary) string {
	if w.Down[u.Name] {
		return "down after the steps (" + u.Error + ")"
	}
	return "it could not be read when the snapshot was taken (" + u.Error + ")"
}

func (w Explanation) Object() any { return w.Explanation }

// WriteMermaid and WriteDOT draw the request's path on each server (pkg/diagram).
func (w Explanation) WriteMermaid(out io.Writer) error {
	return diagram.Explain(w.Explanation).WriteMermaid(out)
}

func (w Explanation) WriteDOT(out io.Writer) error {
	return diagram.Explain(w.Explanation).WriteDOT(out)
}

func (w Explanation) WriteText(out io.Writer, o output.Options) error {
	if o.Format == output.FormatText {
		return printExplanation(out, w, o)
	}
	headers, rows := w.Table(o)
	return output.Table(out, headers, rows, o.NoHeaders)
}

// Names are the servers explained, then those that could not be read.
func (w Explanation) Names() []string {
	var names []string
	for _, d := range w.Explanation.Servers {
		names = append(names, d.Server)
	}
	for _, u := range w.Explanation.Unreachable {
		names = append(names, u.Name)
	}
	return names
}

// Table is a row per server: its answer, the peers, why; wide adds the HTTP status and the
// era; --why-not what would make it succeed.
func (w Explanation) Table(o output.Options) ([]string, [][]string) {
	e, wide := w.Explanation, o.Wide()
	var rows [][]string
	headers := []string{"SERVER", "VERSION", "ANSWER", "PEERS", "WHY"}
	if wide {
		headers = append(headers, "STATUS", "ERA")
	}
	timeline := slices.ContainsFunc(e.Servers, func(d route.Decision) bool { return len(d.Timeline) > 0 })
	if timeline {
		headers = append(headers, "THEN")
	}
	if w.WhyNot {
		headers = append(headers, "TO-SUCCEED")
	}
	for _, d := range e.Servers {
		what, why := d.Plain.Split()
		row := []string{d.Server, d.Version, o.Paint(what, outcomeTone(d.Outcome)), strings.Join(peerNames(d), ","), why}
		if wide {
			row = append(row, statusText(d), string(d.Era))
		}
		if timeline {
			row = append(row, strings.Join(d.ShortTimeline(), " → "))
		}
		if w.WhyNot {
			row = append(row, strings.Join(d.Plain.WhyNot, "; "))
		}
		rows = append(rows, row)
	}
	for _, u := range e.Unreachable {
		row := []string{u.Name, u.Version, route.Unreachable, "", "not evaluated: " + w.notEvaluated(u)}
		if wide {
			row = append(row, "", string(u.Era))
		}
		if timeline {
			row = append(row, "")
		}
		if w.WhyNot {
			row = append(row, "")
		}
		rows = append(rows, row)
	}
	return headers, rows
}

// peerNames are a decision's candidate peers by server name (by identity only when the
// snapshot does not know the server).
func peerNames(d route.Decision) []string {
	names := make([]string, 0, len(d.Candidates))
	for _, c := range d.Candidates {
		names = append(names, c.PeerName())
	}
	return names
}
