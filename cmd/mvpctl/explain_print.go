package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/route"
)

func printExplanation(w io.Writer, ew explanationWriter, o output.Options) error {
	e, configs, verbose, whyNot := ew.e, ew.configs, ew.verbose, ew.whyNot
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
	if len(e.WhatIf) > 0 {
		output.Fprintf(&b, "What if: %s (applied to the snapshot, in order; the answers are those right after)\n", strings.Join(e.WhatIf, ", then "))
	}
	for _, d := range e.Servers {
		output.Fprintf(&b, "\n%s: %s\n", d.Server, o.Paint(d.Plain.Answer, outcomeTone(d.Outcome)))
		output.Fprintf(&b, "  %s runs %s", d.Server, d.Version)
		if c, ok := configs[d.Server]; ok {
			words := c.brief
			if verbose {
				words = c.full
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
