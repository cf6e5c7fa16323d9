package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/preflight"
)

// The objects of --manifests and the Helm releases, each with its verdict (preflight/objects.go):
// one summary line, and a row per object — those not simply served (-o wide: every one).

// objectsLine is the objects' summary line, "" when no manifest was read.
func (p Preflight) objectsLine() string {
	if p.Report.ObjectsSummary == nil {
		return ""
	}
	return "Objects: " + p.Report.ObjectsSummary.Line()
}

// objectRows are the object rows a reader needs: every one with wide, else those not served
// throughout.
func (p Preflight) objectRows(wide bool) []preflight.ObjectRow {
	var out []preflight.ObjectRow
	for _, o := range p.Report.Objects {
		if wide || o.Verdict != preflight.ObjectServed {
			out = append(out, o)
		}
	}
	return out
}

// objectsTable is FILE:LINE, NAMESPACE/NAME, KIND, APIVERSION, VERDICT, DEPRECATED, REMOVED,
// REPLACEMENT; wide adds the chart template, the first stage that does not serve it, the
// closest known spelling or why it was not judged, and the lifecycle's module.
func objectsTable(rows []preflight.ObjectRow, wide bool) ([]string, [][]string) {
	headers := []string{"FILE:LINE", "NAMESPACE/NAME", "KIND", "APIVERSION", "VERDICT", "DEPRECATED", "REMOVED", "REPLACEMENT"}
	if wide {
		headers = append(headers, "TEMPLATE", "NOT-SERVED-BY", "CLOSEST/WHY", "LIFECYCLE")
	}
	out := make([][]string, 0, len(rows))
	for _, o := range rows {
		row := []string{o.Where(), orDash(o.ObjectName()), o.Kind, o.APIVersion, string(o.Verdict), orDash(o.Deprecated), orDash(o.Removed), orDash(o.Replacement)}
		if wide {
			why := o.Closest
			if o.Why != "" {
				why = strings.TrimSpace(why + " " + o.Why)
			}
			row = append(row, orDash(o.Template), orDash(o.NotServedBy), orDash(why), orDash(o.Lifecycle))
		}
		out = append(out, row)
	}
	return headers, out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeObjectsTable prints the summary line and the rows (text output).
func (p Preflight) writeObjectsTable(w io.Writer, o output.Options) error {
	line := p.objectsLine()
	if line == "" {
		return nil
	}
	output.Fprintf(w, "\n%s\n", line)
	rows := p.objectRows(o.Wide())
	if len(rows) == 0 {
		return nil
	}
	headers, cells := objectsTable(rows, o.Wide())
	return output.Table(w, headers, cells, o.NoHeaders)
}

// writeObjectsMarkdown adds the summary line and the rows in a collapsed block.
func (p Preflight) writeObjectsMarkdown(b *strings.Builder) {
	line := p.objectsLine()
	if line == "" {
		return
	}
	output.Fprintf(b, "\n%s\n", line)
	rows := p.objectRows(false)
	if len(rows) == 0 {
		return
	}
	headers, cells := objectsTable(rows, false)
	output.Fprintf(b, "\n<details><summary>%d object(s) not served throughout</summary>\n\n", len(rows))
	mdTableWithin(b, headers, cells, "object(s)")
	b.WriteString("\n</details>\n")
}

// objectCases are the objects not served throughout as JUnit cases that pass: their findings
// (MVP070–MVP073) fail or not by --fail-on, so the failures stay what the exit code says.
func (p Preflight) objectCases() []output.JUnitCase {
	var cases []output.JUnitCase
	for _, o := range p.objectRows(false) {
		name := fmt.Sprintf("object %s %s %s %s: %s", o.Where(), o.Kind, orDash(o.ObjectName()), o.APIVersion, o.Verdict)
		if o.Removed != "" {
			name += " (removed in " + o.Removed + ")"
		}
		if o.Replacement != "" {
			name += "; replacement " + o.Replacement
		}
		cases = append(cases, output.JUnitCase{Name: name, ClassName: "object"})
	}
	return cases
}
