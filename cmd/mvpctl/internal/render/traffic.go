package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/proxytraffic"
)

// Traffic prints a traffic report (kind ProxyTraffic): one row per server and GVR (and code).
type Traffic struct{ Report *proxytraffic.Report }

func (w Traffic) Object() any { return w.Report }

func (w Traffic) WriteText(out io.Writer, o output.Options) error {
	rows, notes := w.rowsAndNotes()
	if err := output.Table(out, trafficHeaders, rows, o.NoHeaders); err != nil {
		return err
	}
	for _, n := range notes {
		output.Fprintf(out, "%s\n", n)
	}
	_, err := output.Fprintf(out, "Interval: %s to %s (%s)\n", w.Report.From.Format(time.RFC3339), w.Report.To.Format(time.RFC3339), w.Report.To.Sub(w.Report.From).Round(time.Second))
	return err
}

var trafficHeaders = []string{"SERVER", "VERSION", "GVR", "CODE", "PROXIED", "ENDPOINT-503"}

// Table is a row per server, GVR and code; it has no wide columns.
func (w Traffic) Table(output.Options) ([]string, [][]string) {
	rows, _ := w.rowsAndNotes()
	return trafficHeaders, rows
}

// Names are the servers, each once.
func (w Traffic) Names() []string {
	names := make([]string, len(w.Report.Servers))
	for i, s := range w.Report.Servers {
		names[i] = s.Name
	}
	return names
}

// rowsAndNotes are the table's rows and the notes that follow it.
func (w Traffic) rowsAndNotes() (rows [][]string, notes []string) {
	for _, s := range w.Report.Servers {
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
			rows = append(rows, []string{s.Name, s.Version, gvr, p.Code, trafficCount(p.Count), countOrEmpty(errs[p.GVR], seen[p.GVR])})
			seen[p.GVR] = true
		}
		for gvr, n := range errs {
			if !seen[gvr] {
				rows = append(rows, []string{s.Name, s.Version, gvr, "", "0", trafficCount(n)})
			}
		}
		var extra []string
		switch {
		case s.ByGVR && s.DiscoveryFetches > 0:
			extra = append(extra, fmt.Sprintf("%s peer-discovery fetch(es) of its own, not user traffic", trafficCount(s.DiscoveryFetches)))
		case !s.ByGVR:
			extra = append(extra, "its counters have no GVR (before 1.36): its own peer-discovery fetches are counted with the requests")
		}
		for typ, n := range s.SyncErrors {
			extra = append(extra, fmt.Sprintf("%s failed peer-discovery sync(s) (%s)", trafficCount(n), typ))
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
	return trafficCount(n)
}

// trafficCount is a counter's value as Prometheus gives it, without a fraction when it has none.
func trafficCount(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
