package render

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/route"
	"github.com/mvpctl/mvpctl/pkg/watch"
)

// The lines and the summary of `mvpctl watch` (and routes --watch).

// Event prints one event of a watch: a line of text, or a WatchEvent document (one line of
// JSON, output.WriteLine).
type Event struct {
	Doc watch.EventDoc
	Loc *time.Location // the zone of the line's clock
}

func (l Event) Object() any { return l.Doc }

func (l Event) WriteText(out io.Writer, o output.Options) error {
	_, err := fmt.Fprintln(out, l.paint(o))
	return err
}

func (l Event) text() string { return l.paint(output.Options{}) }

// paint is the event's line, with a 404/503 window opening and an outcome that becomes a
// 404, a 503 or proxied in colour when o says so.
func (l Event) paint(o output.Options) string {
	e := visibleEvent(l.Doc)
	label := e.Label
	if label == "" {
		label = e.Version
	}
	if label == "" {
		label = "version unknown"
	}
	head := output.Sprintf("%s %s %s: ", e.Time.In(l.Loc).Format("15:04:05"), e.Server, label)
	if e.APIService != "" { // a cluster's object, not a server's
		head = output.Sprintf("%s APIService %s: ", e.Time.In(l.Loc).Format("15:04:05"), e.APIService)
	}
	var what string
	switch e.Type {
	case watch.ServerAdded:
		what = "server added"
		if e.Error != "" {
			what += ", down: " + e.Error
		}
	case watch.ServerGone:
		what = "server gone"
	case watch.ServerDown:
		what = "server down"
		if e.Error != "" {
			what += ": " + e.Error
		}
	case watch.ServerUp:
		what = "server up"
	case watch.VersionChanged:
		what = "version changed"
	case watch.OutcomeChanged:
		what = output.Sprintf("%s %s ⇒ %s", e.GVR, e.From, o.Paint(e.To, outcomeTone(e.ToOutcome)))
	case watch.WindowOpened:
		what = o.Paint(output.Sprintf("%s %s window opened", e.GVR, windowOutcome(e.Window)), output.Failure) + output.Sprintf(" (served by %s)", servedBy(e.Window))
	case watch.WindowClosed:
		what = output.Sprintf("%s %s window closed after %s", e.GVR, windowOutcome(e.Window), seconds(e.Window.Seconds))
	case watch.LeaseAdded:
		what = output.Sprintf("identity lease %s added (holder %s)", e.Lease, e.To)
	case watch.LeaseGone:
		what = output.Sprintf("identity lease %s gone", e.Lease)
	case watch.LeaseNewHolder:
		what = output.Sprintf("identity lease %s renewed by a new holder %s (a new process)", e.Lease, e.To)
	case watch.LeaseAddressChanged:
		what = output.Sprintf("identity lease %s: peer-advertise address %s ⇒ %s", e.Lease, orNone(e.From), orNone(e.To))
	case watch.LeaseStale:
		what = output.Sprintf("identity lease %s stale: not renewed for %s", e.Lease, seconds(e.LeaseSeconds))
		if e.Since != nil {
			what += " (last renewal " + e.Since.In(l.Loc).Format("15:04:05") + ")"
		}
	case watch.Proxied, watch.ProxyErrors, watch.DiscoverySyncErrors:
		what = trafficText(e)
	case watch.APIServiceUnavailable:
		what = "unavailable (" + e.To + "): every apiserver's aggregator answers 503 \"service unavailable\""
		if e.From != "" {
			what = "unavailable (" + e.From + " ⇒ " + e.To + "): every apiserver's aggregator answers 503 \"service unavailable\""
		}
	case watch.APIServiceAvailable:
		what = "available again (" + e.From + " ⇒ " + e.To + ")"
	default:
		what = string(e.Type)
	}
	return head + what
}

// visibleEvent is e with every value from outside (a server's name, a lease's holder, an
// APIService's condition, a counter's labels) made one line, as the event's line places it.
func visibleEvent(e watch.EventDoc) watch.EventDoc {
	v := output.Visible
	e.Server, e.Version, e.Label, e.GVR, e.From, e.To = v(e.Server), v(e.Version), v(e.Label), v(e.GVR), v(e.From), v(e.To)
	e.Error, e.Lease, e.APIService = v(e.Error), v(e.Lease), v(e.APIService)
	if e.Window != nil {
		w := *e.Window
		w.Server, w.GVR, w.Unavailable = v(w.Server), v(w.GVR), mvp.Unavailable503(v(string(w.Unavailable)))
		w.ServedBy = make([]string, len(e.Window.ServedBy))
		for i, s := range e.Window.ServedBy {
			w.ServedBy[i] = v(s)
		}
		e.Window = &w
	}
	if e.Traffic != nil {
		t := *e.Traffic
		t.Code, t.Type = v(t.Code), v(t.Type)
		e.Traffic = &t
	}
	return e
}

func windowOutcome(w *watch.WindowDoc) string {
	if w == nil {
		return "?"
	}
	switch w.Outcome {
	case mvp.NotFound:
		return "404"
	case mvp.Unavailable:
		if w.Unavailable == mvp.APIServiceUnavailable || w.Unavailable == mvp.BackendUnreachable {
			return route.UnavailableCell(w.Unavailable)
		}
		if w.Unavailable != "" {
			return "503 (" + string(w.Unavailable) + ")"
		}
		return "503"
	}
	return string(w.Outcome)
}

func servedBy(w *watch.WindowDoc) string {
	if w == nil || len(w.ServedBy) == 0 {
		return "none"
	}
	return strings.Join(w.ServedBy, ",")
}

func seconds(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(100 * time.Millisecond).String()
}

// WatchSummary prints the summary at the end of a watch.
type WatchSummary struct {
	Doc watch.SummaryDoc
	Loc *time.Location // the zone of the summary's clock
}

func (w WatchSummary) Object() any { return w.Doc }

func (w WatchSummary) WriteText(out io.Writer, o output.Options) error {
	d := w.Doc
	clock := func(t time.Time) string { return t.In(w.Loc).Format("15:04:05") }
	byLease := ""
	if d.LeaseTriggeredReads > 0 {
		byLease = output.Sprintf(" (%d on an identity-lease change)", d.LeaseTriggeredReads)
	}
	output.Fprintf(out, "\nWatched %s–%s (%s): %d snapshot%s%s, %d read%s failed; stopped: %s.\n",
		clock(d.From), clock(d.To), d.To.Sub(d.From).Round(100*time.Millisecond), d.Snapshots, plural(d.Snapshots, "", "s"), byLease,
		d.ReadsFailed, plural(d.ReadsFailed, "", "s"), d.Stopped)
	if len(d.Windows) == 0 {
		fmt.Fprintln(out, "No window: no GVR that some server served answered 404 or 503 on any server.")
	} else {
		output.Fprintf(out, "%d window%s during which a GVR that some server served answered 404 or 503:\n", len(d.Windows), plural(len(d.Windows), "", "s"))
		// the GVRs whose windows were alike (server, answer, times, servers serving them) under
		// one line that says so
		type key struct{ server, answer, opened, closed, duration, servedBy string }
		gvrs := map[key][]string{}
		var order []key
		for i := range d.Windows {
			win := &d.Windows[i]
			closed := "still open"
			if win.Closed != nil {
				closed = "closed " + clock(*win.Closed)
			}
			k := key{win.Server, windowOutcome(win), clock(win.Opened), closed, seconds(win.Seconds), servedBy(win)}
			if gvrs[k] == nil {
				order = append(order, k)
			}
			gvrs[k] = append(gvrs[k], win.GVR)
		}
		for _, k := range order {
			output.Fprintf(out, "%s: %s opened %s, %s (%s), served by %s: %d GVR(s)\n", k.server, o.Paint(k.answer, output.Failure), k.opened, k.closed, k.duration, k.servedBy, len(gvrs[k]))
			for _, line := range packWords(gvrs[k], subjectIndent, output.LineWidth(out)) {
				output.Fprintf(out, "%s\n", line)
			}
		}
	}
	if d.Traffic == nil {
		return nil
	}
	return writeTrafficTotals(out, d.Traffic, o)
}

// writeTrafficTotals prints the summary's account of the proxy counters.
func writeTrafficTotals(out io.Writer, t *watch.TrafficDoc, o output.Options) error {
	if len(t.Totals) == 0 {
		fmt.Fprintln(out, "Peer proxy (from /metrics): nothing proxied, no endpoint-resolution 503, no failed peer-discovery sync.")
	} else {
		fmt.Fprintln(out, "Peer proxy (from /metrics, counted while the watch ran):")
		rows := make([][]string, 0, len(t.Totals))
		for _, c := range t.Totals {
			gvr := c.GVR
			if gvr == "" && c.Type != watch.DiscoverySyncErrors {
				gvr = "<any>" // counters before 1.36 carry no GVR
			}
			what := c.Code
			if c.Type != watch.Proxied {
				what = c.ErrorType
			}
			rows = append(rows, []string{c.Server, string(c.Type), gvr, what, num(c.Count)})
		}
		if err := output.Table(out, []string{"SERVER", "COUNTER", "GVR", "CODE-OR-TYPE", "COUNT"}, rows, o.NoHeaders); err != nil {
			return err
		}
	}
	for _, s := range sortedKeysOf(t.DiscoveryFetches) {
		output.Fprintf(out, "%s: %s peer-discovery fetch(es) of its own, not user traffic\n", s, num(t.DiscoveryFetches[s]))
	}
	for _, s := range sortedKeysOf(t.NotRead) {
		output.Fprintf(out, "%s: counters not read: %s\n", s, t.NotRead[s])
	}
	return nil
}

func sortedKeysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// trafficText is a traffic event's text: what the server counted since the last sample.
func trafficText(e watch.EventDoc) string {
	t := e.Traffic
	if t == nil {
		return string(e.Type)
	}
	gvr := e.GVR
	if gvr == "" {
		gvr = "requests of any GVR (counters before 1.36 carry none)"
	}
	switch e.Type {
	case watch.Proxied:
		return output.Sprintf("%s proxied %s× → %s", gvr, num(t.Count), t.Code)
	case watch.ProxyErrors:
		return output.Sprintf("%s 503 of endpoint resolution %s× (%s)", gvr, num(t.Count), t.Type)
	}
	return output.Sprintf("peer-discovery sync failed %s× (%s)", num(t.Count), t.Type)
}
