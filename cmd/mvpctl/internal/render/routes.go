package render

import (
	"io"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/diagram"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/route"
)

// Routes prints a routing table (routes): a row per GVR, a column per server; drawn, servers
// × groups of GVRs.
type Routes struct{ RoutingTable route.RoutingTable }

func (w Routes) Object() any { return w.RoutingTable }

// WriteMermaid and WriteDOT draw servers × groups of GVRs: who serves, proxies to whom, 404,
// 503 (pkg/diagram).
func (w Routes) WriteMermaid(out io.Writer) error {
	return diagram.Routes(w.RoutingTable).WriteMermaid(out)
}

func (w Routes) WriteDOT(out io.Writer) error { return diagram.Routes(w.RoutingTable).WriteDOT(out) }

func (w Routes) WriteText(out io.Writer, o output.Options) error {
	headers, rows := w.Table(o)
	return output.Table(out, headers, rows, o.NoHeaders)
}

// Names are the rows' GVRs.
func (w Routes) Names() []string {
	names := make([]string, len(w.RoutingTable.Rows))
	for i, r := range w.RoutingTable.Rows {
		names[i] = r.Name
	}
	return names
}

// Table is the routing table as routes prints it (routesTable; wide with -o wide).
func (w Routes) Table(o output.Options) ([]string, [][]string) {
	return routesTable(w.RoutingTable, o, o.Wide(), true)
}

// routesTable lays out a routing table, for routes and for each step of simulate: a row per
// GVR, a column per server, each cell painted by its outcome; wide adds SERVED-BY first, each
// 503's kind and [inferred]; viaLB adds VIA-LB, the share of requests through the load
// balancer each outcome gets, when the table's snapshot was sampled through one.
func routesTable(t route.RoutingTable, o output.Options, wide, viaLB bool) (headers []string, rows [][]string) {
	headers = []string{"NAME"}
	if wide {
		headers = append(headers, "SERVED-BY")
	}
	for _, s := range t.Servers {
		headers = append(headers, output.Header(s.Name))
	}
	viaLB = viaLB && len(t.Rows) > 0 && t.Rows[0].ThroughLB != nil
	if viaLB {
		headers = append(headers, "VIA-LB")
	}
	rows = make([][]string, 0, len(t.Rows))
	for _, r := range t.Rows {
		row := []string{r.Name}
		if wide {
			row = append(row, strings.Join(r.ServedBy, ","))
		}
		for _, c := range r.Cells {
			text := c.Text
			if wide && c.Unavailable != "" {
				text += " (" + string(c.Unavailable) + ")"
			}
			if wide && c.Inferred {
				text += " [inferred]"
			}
			row = append(row, o.Paint(text, outcomeTone(c.Outcome)))
		}
		if viaLB {
			row = append(row, r.ThroughLB.Text)
		}
		rows = append(rows, row)
	}
	return headers, rows
}
