package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/mvpctl/mvpctl/pkg/watch"
)

// Bounds of --interval: a full read of every apiserver costs several requests per server.
const (
	defaultWatchInterval = 2 * time.Second
	minWatchInterval     = 200 * time.Millisecond
)

// watchFlags are the flags of the watch loop, shared by `mvpctl watch` and `routes --watch`.
type watchFlags struct {
	interval     time.Duration
	untilStable  time.Duration
	timeoutTotal time.Duration
	fs           *pflag.FlagSet
}

var watchFlagNames = []string{"interval", "until-stable", "timeout-total"}

func (w *watchFlags) addFlags(fs *pflag.FlagSet) {
	w.fs = fs
	fs.DurationVar(&w.interval, "interval", defaultWatchInterval, "time between the starts of two reads of the control plane (at least 200ms)")
	fs.DurationVar(&w.untilStable, "until-stable", 0, "stop once nothing has changed for this long (0: run until interrupted)")
	fs.DurationVar(&w.timeoutTotal, "timeout-total", 0, "stop after this long in all (0: no limit)")
}

func (w *watchFlags) validate() error {
	if w.interval < minWatchInterval {
		return fmt.Errorf("--interval must be at least %s, got %s", minWatchInterval, w.interval)
	}
	if w.untilStable < 0 || w.timeoutTotal < 0 {
		return fmt.Errorf("--until-stable and --timeout-total cannot be negative")
	}
	return nil
}

// setFlags lists the watch flags given on the command line.
func (w *watchFlags) setFlags() []string {
	var set []string
	for _, n := range watchFlagNames {
		if w.fs != nil && w.fs.Changed(n) {
			set = append(set, "--"+n)
		}
	}
	return set
}

const watchLong = `Follow a live control plane, during a rolling upgrade for instance: read every apiserver
(as routes does without --snapshot), then again every --interval, and print each change as
one line with the time: a server added, down, up or on another version; a GVR's outcome on
a server (local, proxy→PEER, 404, 503); a window opened or closed — a time during which a
GVR that some server serves answered 404 or 503 on some server.

A read that fails (a server restarting) is no error: the server shows as down. A server
whose identity lease disappears (a graceful stop deletes it on 1.35+) shows as down too, and
comes back up when it is seen again. The watch stops on Ctrl-C, after --until-stable with no
change, or after --timeout-total, and then prints a summary: every window, how long it
lasted, on which server. Lines go to stdout, progress and warnings to stderr. -o json
streams one WatchEvent document per line and ends with one WatchSummary line.
`

func newWatchCmd(g *globalOptions) *cobra.Command {
	o := &watchOptions{output: output.NewFlags(output.FormatText, output.FormatJSON)}
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Follow a live control plane and print every routing change and 404/503 window",
		Long:  watchLong + "\n" + commandExitCodes("watch"),
		Example: `  # Follow the cluster of the current kubeconfig context during an upgrade
  mvpctl watch

  # Read every 500ms, stop after 5 minutes without change, events as JSON Lines
  mvpctl watch --interval 500ms --until-stable 5m -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := o.output.Options(cmd.CommandPath())
			if err != nil {
				return err
			}
			return runWatch(cmd.Context(), g, &o.live, &o.flags, opts)
		},
	}
	o.live.addFlags(cmd.Flags())
	o.flags.addFlags(cmd.Flags())
	o.output.AddFlags(cmd.Flags())
	return cmd
}

type watchOptions struct {
	live   discoverFlags
	flags  watchFlags
	output *output.Flags
}

// runWatch is the command: `mvpctl watch` and `mvpctl routes --watch`.
func runWatch(ctx context.Context, g *globalOptions, live *discoverFlags, f *watchFlags, opts output.Options) error {
	if err := f.validate(); err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if live.viaLB {
		return errors.New("--via-lb cannot be used with watch: watch follows each apiserver by name from one read to the next, and the server classes of a sampling are estimated anew each time")
	}
	read := func(ctx context.Context) (*snapshot.Snapshot, error) {
		snap, err := live.discoverQuiet(ctx, g)
		if err == nil {
			// Discovery may switch to sampling by itself (no lease address dialled).
			err = refuseLB(snap, "watch follows each apiserver by name from one read to the next")
		}
		return snap, err
	}
	w := &watcher{
		read:        read,
		clock:       realClock{},
		interval:    f.interval,
		untilStable: f.untilStable,
		total:       f.timeoutTotal,
		out:         g.streams.Out,
		errOut:      g.streams.ErrOut,
		opts:        opts,
		loc:         time.Local,
	}
	res, err := w.run(ctx)
	if err != nil {
		return err
	}
	return watchResult(res)
}

// watchClock is the watch loop's time; tests move it by hand.
type watchClock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// watcher is the watch loop: read, feed the tracker, print the events; at the end, the summary.
type watcher struct {
	read        func(context.Context) (*snapshot.Snapshot, error)
	clock       watchClock
	interval    time.Duration
	untilStable time.Duration
	total       time.Duration
	out, errOut io.Writer
	opts        output.Options
	loc         *time.Location // of the times in text lines

	tracker *watch.Tracker
	last    *snapshot.Snapshot
	version map[string]string // last known version per server
}

// watchOutcome is what a watch saw, for its exit code.
type watchOutcome struct {
	summary watch.SummaryDoc
	// down are the servers still down at the end: their windows could not be closed.
	down []string
}

// Why a watch ended (SummaryDoc.Stopped).
const (
	stoppedInterrupted = "interrupted"
	stoppedStable      = "stable"
	stoppedTimeout     = "timeout"
)

func (w *watcher) run(ctx context.Context) (watchOutcome, error) {
	w.tracker = watch.NewTracker()
	w.version = map[string]string{}
	start := w.clock.Now()
	snap, err := w.read(ctx)
	if err != nil {
		return watchOutcome{}, err // nothing could be read: fail as every command does
	}
	at := w.clock.Now()
	if err := w.observe(snap, at); err != nil {
		return watchOutcome{}, err
	}
	snapshots, failed := 1, 0
	lastChange, lastRead := at, start
	var stopped string
	for stopped == "" {
		now := w.clock.Now()
		switch {
		case ctx.Err() != nil:
			stopped = stoppedInterrupted
			continue
		case w.untilStable > 0 && now.Sub(lastChange) >= w.untilStable:
			stopped = stoppedStable
			continue
		case w.total > 0 && now.Sub(start) >= w.total:
			stopped = stoppedTimeout
			continue
		}
		wait := lastRead.Add(w.interval).Sub(now)
		if w.total > 0 {
			wait = min(wait, start.Add(w.total).Sub(now))
		}
		if wait > 0 {
			select {
			case <-ctx.Done():
				continue
			case <-w.clock.After(wait):
			}
			if w.total > 0 && w.clock.Now().Sub(start) >= w.total {
				continue
			}
		}
		lastRead = w.clock.Now()
		snap, err := w.read(ctx)
		if ctx.Err() != nil {
			continue // interrupted during the read: what it got is not an observation
		}
		at := w.clock.Now()
		snapshots++
		if err != nil {
			failed++
			fmt.Fprintf(w.errOut, "warning: read at %s got nothing, every server counts as down: %s\n", at.In(w.loc).Format("15:04:05"), oneLine(err.Error()))
			snap = allDown(w.last, err.Error())
		}
		n, err := w.observeCount(snap, at)
		if err != nil {
			return watchOutcome{}, err
		}
		if n > 0 {
			lastChange = at
		}
	}
	end := w.clock.Now()
	doc := watch.NewSummaryDoc(w.tracker.Summary(end))
	doc.Snapshots, doc.ReadsFailed, doc.Stopped = snapshots, failed, stopped
	res := watchOutcome{summary: doc}
	for _, s := range w.last.Servers {
		if !s.Reachable {
			res.down = append(res.down, s.Name)
		}
	}
	if err := output.WriteLine(w.out, summaryWriter{doc: doc, loc: w.loc}, w.opts); err != nil {
		return res, err
	}
	return res, nil
}

func (w *watcher) observe(snap *snapshot.Snapshot, at time.Time) error {
	_, err := w.observeCount(snap, at)
	return err
}

// observeCount feeds snap to the tracker and prints its events; it returns how many.
func (w *watcher) observeCount(snap *snapshot.Snapshot, at time.Time) (int, error) {
	snap = carryVanished(w.last, snap)
	w.last = snap
	events := w.tracker.Observe(snap, at)
	servers := map[string]*snapshot.Server{}
	for i := range snap.Servers {
		servers[snap.Servers[i].Name] = &snap.Servers[i]
	}
	// A server whose version changed in this read is labelled from→to in all its lines.
	label := map[string]string{}
	for _, e := range events {
		if e.Type == watch.VersionChanged {
			label[e.Server] = e.From + "→" + e.To
		}
	}
	for _, s := range snap.Servers {
		if s.Version != "" {
			w.version[s.Name] = s.Version
		}
	}
	for _, e := range events {
		version := w.version[e.Server]
		if e.Type == watch.ServerGone {
			version = e.From
		}
		errText := ""
		if s := servers[e.Server]; s != nil && !s.Reachable && (e.Type == watch.ServerDown || e.Type == watch.ServerAdded) {
			errText = oneLine(s.Error)
		}
		l := eventLine{doc: watch.NewEventDoc(e, version, errText), label: label[e.Server], loc: w.loc}
		if err := output.WriteLine(w.out, l, w.opts); err != nil {
			return 0, err
		}
	}
	return len(events), nil
}

// vanishedError is the error of a server whose identity lease is gone.
const vanishedError = "not found any more: no identity lease (a graceful stop deletes it on 1.35+) and not read otherwise"

// carryVanished keeps in snap, as unreachable, the servers of prev it no longer has: a
// server stopped gracefully deletes its identity lease, so discovery no longer finds it, and
// during an upgrade it comes back. It is down meanwhile, not gone. Only its name and version
// are kept: with no identity it is no proxy target.
func carryVanished(prev, snap *snapshot.Snapshot) *snapshot.Snapshot {
	if prev == nil {
		return snap
	}
	have := map[string]bool{}
	for _, s := range snap.Servers {
		have[s.Name] = true
	}
	var missing []snapshot.Server
	for _, s := range prev.Servers {
		if !have[s.Name] {
			errText := vanishedError
			if !s.Reachable && s.ID == "" {
				errText = s.Error // already carried: keep why
			}
			missing = append(missing, snapshot.Server{Name: s.Name, Hostname: s.Hostname, Version: s.Version, Error: errText})
		}
	}
	if len(missing) == 0 {
		return snap
	}
	c := *snap
	c.Servers = append(append([]snapshot.Server(nil), snap.Servers...), missing...)
	return &c
}

// allDown is prev with every server unreachable for errText: a read that got nothing. The
// servers keep what they served, so that the GVRs stay known and no window closes on a read
// that saw nothing.
func allDown(prev *snapshot.Snapshot, errText string) *snapshot.Snapshot {
	c := *prev
	c.Servers = nil
	for _, s := range prev.Servers {
		s.Reachable, s.Error = false, errText
		c.Servers = append(c.Servers, s)
	}
	return &c
}

// eventLine prints one event: a line of text, or a WatchEvent document.
type eventLine struct {
	doc   watch.EventDoc
	label string // the server's version, or from→to when it changed in this read
	loc   *time.Location
}

func (l eventLine) Object() any { return l.doc }

func (l eventLine) WriteText(out io.Writer, _ output.Options) error {
	_, err := fmt.Fprintln(out, l.text())
	return err
}

func (l eventLine) text() string {
	e := l.doc
	label := l.label
	if label == "" {
		label = e.Version
	}
	if label == "" {
		label = "version unknown"
	}
	head := fmt.Sprintf("%s %s %s: ", e.Time.In(l.loc).Format("15:04:05"), e.Server, label)
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
		what = fmt.Sprintf("%s %s ⇒ %s", e.GVR, e.From, e.To)
	case watch.WindowOpened:
		what = fmt.Sprintf("%s %s window opened (served by %s)", e.GVR, windowOutcome(e.Window), servedBy(e.Window))
	case watch.WindowClosed:
		what = fmt.Sprintf("%s %s window closed after %s", e.GVR, windowOutcome(e.Window), seconds(e.Window.Seconds))
	default:
		what = string(e.Type)
	}
	return head + what
}

func windowOutcome(w *watch.WindowDoc) string {
	if w == nil {
		return "?"
	}
	switch w.Outcome {
	case mvp.NotFound:
		return "404"
	case mvp.Unavailable:
		if w.Unavailable != "" {
			return "503 (" + w.Unavailable + ")"
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

// summaryWriter prints the summary at the end of a watch.
type summaryWriter struct {
	doc watch.SummaryDoc
	loc *time.Location
}

func (w summaryWriter) Object() any { return w.doc }

func (w summaryWriter) WriteText(out io.Writer, o output.Options) error {
	d := w.doc
	clock := func(t time.Time) string { return t.In(w.loc).Format("15:04:05") }
	fmt.Fprintf(out, "\nWatched %s–%s (%s): %d snapshot%s, %d read%s failed; stopped: %s.\n",
		clock(d.From), clock(d.To), d.To.Sub(d.From).Round(100*time.Millisecond), d.Snapshots, plural(d.Snapshots, "", "s"),
		d.ReadsFailed, plural(d.ReadsFailed, "", "s"), d.Stopped)
	if len(d.Windows) == 0 {
		_, err := fmt.Fprintln(out, "No window: no GVR that some server served answered 404 or 503 on any server.")
		return err
	}
	fmt.Fprintf(out, "%d window%s during which a GVR that some server served answered 404 or 503:\n", len(d.Windows), plural(len(d.Windows), "", "s"))
	rows := make([][]string, 0, len(d.Windows))
	for i := range d.Windows {
		win := &d.Windows[i]
		closed := "open"
		if win.Closed != nil {
			closed = clock(*win.Closed)
		}
		rows = append(rows, []string{win.GVR, win.Server, windowOutcome(win), clock(win.Opened), closed, seconds(win.Seconds), servedBy(win)})
	}
	return output.Table(out, []string{"GVR", "SERVER", "ANSWER", "OPENED", "CLOSED", "DURATION", "SERVED-BY"}, rows, o.NoHeaders)
}
