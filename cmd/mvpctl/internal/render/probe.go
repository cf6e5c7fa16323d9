package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/probe"
)

// Probe prints a probe report (probe): a row per measurement, what /metrics says each server
// proxied, and the result line.
type Probe struct{ Report *probe.Report }

func (w Probe) Object() any { return w.Report }

func (w Probe) WriteText(out io.Writer, o output.Options) error {
	return printProbeTable(out, w, o)
}

// Names are the GVRs probed, each once.
func (w Probe) Names() []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range w.Report.Results {
		if !seen[r.Name] {
			seen[r.Name] = true
			names = append(names, r.Name)
		}
	}
	return names
}

// Table is a row per measurement: server, GVR, verb, predicted, observed and verdict; wide
// adds the HTTP statuses and the note.
func (w Probe) Table(o output.Options) ([]string, [][]string) {
	rep, wide := w.Report, o.Wide()
	headers := []string{"SERVER", "GVR", "VERB", "PREDICTED", "OBSERVED", "VERDICT"}
	if wide {
		headers = append(headers, "STATUS", "NOTE")
	}
	rows := make([][]string, 0, len(rep.Results))
	for _, r := range rep.Results {
		row := []string{r.Server, r.Name, r.Verb, r.Predicted.Text, r.Observed.Text, string(r.Verdict)}
		if wide {
			note := r.Note
			if note == "" && r.Observed.Error != "" {
				note = r.Observed.Error
			}
			if cut := cutAnswers(r.Observed); cut != "" {
				note = strings.TrimPrefix(note+"; "+cut, "; ")
			}
			row = append(row, statusPair(r.Observed), note)
		}
		rows = append(rows, row)
	}
	return headers, rows
}

func printProbeTable(w io.Writer, pw Probe, o output.Options) error {
	rep, noHeaders := pw.Report, o.NoHeaders
	if headers, rows := pw.Table(o); len(rows) > 0 {
		if err := output.Table(w, headers, rows, noHeaders); err != nil {
			return err
		}
	}
	if err := printMetricsTable(w, rep, noHeaders); err != nil {
		return err
	}
	for _, s := range rep.Skipped {
		output.Fprintf(w, "Skipped %s: %s\n", s.Name, s.Why)
	}
	if !o.Wide() { // wide says it in the NOTE column
		for _, r := range rep.Results {
			if cut := cutAnswers(r.Observed); cut != "" {
				output.Fprintf(w, "Cut %s %s %s: %s\n", r.Server, r.Name, r.Verb, cut)
			}
		}
	}
	s := rep.Summary
	cut := ""
	if s.Truncated > 0 {
		cut = fmt.Sprintf("; %d with an answer cut at %s", s.Truncated, probe.ByteSize(probe.MaxBody))
	}
	_, err := output.Fprintf(w, "Result: %d match, %d mismatch, %d loop-header violation, %d inconclusive, %d error, %d not measured (%d requests to %d of %d apiservers%s)\n",
		s.Match, s.Mismatch, s.LoopViolations, s.Inconclusive, s.Errors, s.NotMeasured, s.Requests, len(rep.Servers)-s.ServersNotProbed, len(rep.Servers), cut)
	return err
}

// cutAnswers says which of a measurement's two answers were cut at probe.MaxBody ("" when
// neither was).
func cutAnswers(m probe.Measured) string {
	var which []string
	if m.Normal != nil && m.Normal.Truncated {
		which = append(which, "the answer")
	}
	if m.ForcedLocal != nil && m.ForcedLocal.Truncated {
		which = append(which, "the forced-local answer")
	}
	if len(which) == 0 {
		return ""
	}
	return fmt.Sprintf("%s cut at %s (longer, read to there)", strings.Join(which, " and "), probe.ByteSize(probe.MaxBody))
}

// statusPair is "normal/forced-local" HTTP status, e.g. 200/404.
func statusPair(m probe.Measured) string {
	code := func(r *probe.Response) string {
		if r == nil {
			return "-"
		}
		return strconv.Itoa(r.Status)
	}
	if m.Normal == nil && m.ForcedLocal == nil {
		return ""
	}
	return code(m.Normal) + "/" + code(m.ForcedLocal)
}

// printMetricsTable shows, per probed server, what /metrics says it proxied during the run,
// next to what the probe saw it proxy.
func printMetricsTable(w io.Writer, rep *probe.Report, noHeaders bool) error {
	var rows [][]string
	for _, s := range rep.Servers {
		m := s.Metrics
		if !s.Probed || m == nil {
			continue
		}
		saw := fmt.Sprintf("%d proxied", m.ExpectedRerouted)
		if m.ExpectedEndpointErrors > 0 {
			saw += fmt.Sprintf(", %d endpoint-503", m.ExpectedEndpointErrors)
		}
		if !m.Read {
			rows = append(rows, []string{s.Name, "<unknown>", "<unknown>", "<unknown>", "<unknown>", m.Note})
			continue
		}
		rows = append(rows, []string{s.Name, num(m.ReroutedTotal), m.CodesText(), num(m.PeerProxyErrorsTotal), saw, m.Note})
	}
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	return output.Table(w, []string{"SERVER", "REROUTED", "BY-CODE", "PROXY-ERRORS", "PROBE-SAW", "NOTE"}, rows, noHeaders)
}
