package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/pkg/discover"
	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/mvpctl/mvpctl/pkg/watch"
)

// fakeClock is the watch loop's clock in tests: After moves it at once.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }
func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

// readStep is one read of the scripted source: a snapshot, or an error.
type readStep struct {
	snap *snapshot.Snapshot
	err  error
	took time.Duration // how long the read takes on the fake clock
}

// scriptedSource returns the steps in order, then the last snapshot again and again. cancel,
// when set, is called once the script is exhausted (an interrupted watch).
func scriptedSource(clock *fakeClock, steps []readStep, cancel func()) func(context.Context) (*snapshot.Snapshot, error) {
	i := 0
	var last *snapshot.Snapshot
	return func(context.Context) (*snapshot.Snapshot, error) {
		if i >= len(steps) {
			if cancel != nil {
				cancel()
			}
			return last, nil
		}
		s := steps[i]
		i++
		clock.now = clock.now.Add(s.took)
		if s.snap != nil {
			last = s.snap
		}
		return s.snap, s.err
	}
}

var watchT0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// upgradeReads is a rolling upgrade of two default 1.36 servers (no peer proxy filter) to
// 1.37 as a watch reads it: a stops gracefully (its lease gone: not in the read at all),
// comes back on 1.37 — b now answers 404 for what only 1.37 serves —, b crashes, a read gets
// nothing, b comes back on 1.37 and the windows close.
func upgradeReads(t *testing.T) []readStep {
	t.Helper()
	start, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: "1.36"}, {Name: "b", Version: "1.36"}}, watchT0)
	if err != nil {
		t.Fatal(err)
	}
	apply := func(s *snapshot.Snapshot, st simulate.Step) *snapshot.Snapshot {
		t.Helper()
		next, err := simulate.Apply(s, st)
		if err != nil {
			t.Fatal(err)
		}
		return next
	}
	without := func(s *snapshot.Snapshot, name string) *snapshot.Snapshot {
		c := *s
		c.Servers = nil
		for _, srv := range s.Servers {
			if srv.Name != name {
				c.Servers = append(c.Servers, srv)
			}
		}
		return &c
	}
	aUp := apply(start, simulate.Step{Action: simulate.ActionUpgrade, Server: "a", To: "1.37"})
	bCrashed := apply(aUp, simulate.Step{Action: simulate.ActionCrash, Server: "b"})
	bUp := apply(bCrashed, simulate.Step{Action: simulate.ActionUpgrade, Server: "b", To: "1.37"})
	took := 300 * time.Millisecond
	return []readStep{
		{snap: start, took: took},
		{snap: start, took: took},
		{snap: without(start, "a"), took: took},
		{snap: without(start, "a"), took: took},
		{snap: aUp, took: took},
		{snap: aUp, took: took},
		{snap: bCrashed, took: took},
		{err: errors.New("no apiserver could be read (a: connection refused)"), took: took},
		{snap: bCrashed, took: took},
		{snap: bUp, took: took},
	}
}

// testWatch is a watch loop on the fake clock, printing to out and errOut.
type testWatch struct {
	*watch.Loop
	out  *bytes.Buffer
	opts output.Options
}

func (w testWatch) run(ctx context.Context) (watch.Result, error) {
	return runLoop(ctx, w.Loop, w.out, w.opts, time.UTC)
}

func newTestWatcher(clock *fakeClock, read func(context.Context) (*snapshot.Snapshot, error), format output.Format, out, errOut *bytes.Buffer) testWatch {
	opts := output.Options{Format: format}
	l := newWatchLoop(out, errOut, opts, time.UTC)
	l.Read, l.Clock, l.Interval, l.UntilStable = read, clock, time.Second, 5*time.Second
	return testWatch{Loop: l, out: out, opts: opts}
}

// TestWatchLoop runs the loop over the scripted upgrade, in text and JSON; the lines are
// golden, the exit code is 3 (windows were seen).
func TestWatchLoop(t *testing.T) {
	for _, tt := range []struct {
		format output.Format
		golden string
	}{
		{output.FormatText, "watch-upgrade.txt"},
		{output.FormatJSON, "watch-upgrade.jsonl"},
	} {
		t.Run(string(tt.format), func(t *testing.T) {
			clock := &fakeClock{now: watchT0}
			var out, errOut bytes.Buffer
			w := newTestWatcher(clock, scriptedSource(clock, upgradeReads(t), nil), tt.format, &out, &errOut)
			res, err := w.run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tt.golden, out.String())
			if !strings.Contains(errOut.String(), "warning: read at 12:00:07 got nothing") {
				t.Errorf("stderr does not report the failed read: %q", errOut.String())
			}
			s := res.Summary
			if s.Stopped != watch.StoppedStable || s.ReadsFailed != 1 || len(res.Down) != 0 {
				t.Errorf("stopped %q, %d reads failed, down %v; want stable, 1, none", s.Stopped, s.ReadsFailed, res.Down)
			}
			if len(s.Windows) == 0 {
				t.Fatal("no window: b on 1.36 answers 404 for what only a on 1.37 serves")
			}
			for _, win := range s.Windows {
				// a is back on 1.37 at the 5th read (12:00:04.3), b at the 10th (12:00:09.3).
				if win.Server != "b" || win.Open || win.Outcome != mvp.NotFound || win.Seconds != 5 {
					t.Errorf("window %+v: want b, 404, closed after 5s", win)
				}
			}
			if code := exitCode(watchResult(res)); code != ExitFindings {
				t.Errorf("exit %d, want %d", code, ExitFindings)
			}
			if tt.format == output.FormatJSON {
				checkJSONLines(t, out.String())
			}
		})
	}
}

// checkJSONLines: every line is one document, WatchEvent until the last, WatchSummary.
func checkJSONLines(t *testing.T, s string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		var d struct{ APIVersion, Kind string }
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatalf("line %d is not a JSON document: %v\n%s", i+1, err, l)
		}
		want := watch.EventDocKind
		if i == len(lines)-1 {
			want = watch.SummaryDocKind
		}
		if d.Kind != want || d.APIVersion != "mvpctl.io/v1alpha1" {
			t.Errorf("line %d: %s %s, want mvpctl.io/v1alpha1 %s", i+1, d.APIVersion, d.Kind, want)
		}
	}
}

// TestWatchStops: the ways a watch ends, and what each exits with.
func TestWatchStops(t *testing.T) {
	steady, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: "1.37"}, {Name: "b", Version: "1.37"}}, watchT0)
	if err != nil {
		t.Fatal(err)
	}
	crashed, err := simulate.Apply(steady, simulate.Step{Action: simulate.ActionCrash, Server: "b"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		steps       []readStep
		untilStable time.Duration
		total       time.Duration
		interrupt   bool
		stopped     string
		snapshots   int
		code        int
	}{
		{"stable", []readStep{{snap: steady}}, 3 * time.Second, 0, false, watch.StoppedStable, 4, ExitOK},
		{"timeout-total", []readStep{{snap: steady}}, 0, 2500 * time.Millisecond, false, watch.StoppedTimeout, 3, ExitOK},
		{"interrupted", []readStep{{snap: steady}, {snap: steady}}, 0, 0, true, watch.StoppedInterrupted, 2, ExitOK},
		{"still-down", []readStep{{snap: steady}, {snap: crashed}}, 2 * time.Second, 0, false, watch.StoppedStable, 4, ExitIncomplete},
		{"read-failed", []readStep{{snap: steady}, {err: errors.New("boom")}, {snap: steady}}, 2 * time.Second, 0, false, watch.StoppedStable, 5, ExitIncomplete},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := &fakeClock{now: watchT0}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var stop func()
			if tt.interrupt {
				stop = cancel
			}
			var out, errOut bytes.Buffer
			w := newTestWatcher(clock, scriptedSource(clock, tt.steps, stop), output.FormatText, &out, &errOut)
			w.UntilStable, w.Total = tt.untilStable, tt.total
			res, err := w.run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if res.Summary.Stopped != tt.stopped || res.Summary.Snapshots != tt.snapshots {
				t.Errorf("stopped %q after %d snapshots, want %q after %d\n%s", res.Summary.Stopped, res.Summary.Snapshots, tt.stopped, tt.snapshots, out.String())
			}
			if code := exitCode(watchResult(res)); code != tt.code {
				t.Errorf("exit %d, want %d (%v)", code, tt.code, watchResult(res))
			}
			if !strings.Contains(out.String(), "stopped: "+tt.stopped) {
				t.Errorf("no summary:\n%s", out.String())
			}
		})
	}
}

// A watch that cannot read anything at the start fails as other commands do.
func TestWatchFirstReadFails(t *testing.T) {
	clock := &fakeClock{now: watchT0}
	var out, errOut bytes.Buffer
	w := newTestWatcher(clock, scriptedSource(clock, []readStep{{err: errors.New("no apiserver could be read")}}, nil), output.FormatText, &out, &errOut)
	if _, err := w.run(context.Background()); err == nil || out.Len() != 0 {
		t.Errorf("err %v, stdout %q: want the read's error and nothing printed", err, out.String())
	}
}

// The watch flags: usage errors before any request.
func TestWatchUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"watch", "--interval", "100ms"}, "error: --interval must be at least 200ms, got 100ms\n"},
		{[]string{"watch", "-o", "yaml"}, `error: unknown output format "yaml" for "mvpctl watch": want one of text|json|table|wide` + "\n"},
		{[]string{"routes", "-w", "--snapshot", skew}, "error: --watch follows the live cluster: it cannot be used with --snapshot\n"},
		{[]string{"routes", "-w", "-o", "yaml"}, "error: -o yaml cannot be used with --watch: want text|json|table|wide, as mvpctl watch\n"},
		{[]string{"routes", "--snapshot", skew, "--interval", "1s"}, "error: --interval only apply with --watch\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := run(t, tt.args...)
			if code != ExitError || out != "" || errOut != tt.want {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1 and %q", code, out, errOut, tt.want)
			}
		})
	}
}

// A read that learned nothing (the identity leases could not be listed through the
// kubeconfig's server) leaves the last state standing: no server goes down, the read counts
// as failed.
func TestWatchNoObservation(t *testing.T) {
	steady, err := simulate.FromProfiles([]simulate.ServerVersion{{Name: "a", Version: "1.37"}, {Name: "b", Version: "1.37"}}, watchT0)
	if err != nil {
		t.Fatal(err)
	}
	clock := &fakeClock{now: watchT0}
	var out, errOut bytes.Buffer
	steps := []readStep{{snap: steady}, {err: fmt.Errorf("%w: %w", watch.ErrNoObservation, discover.ErrLeasesNotListed)}, {snap: steady}}
	w := newTestWatcher(clock, scriptedSource(clock, steps, nil), output.FormatText, &out, &errOut)
	w.UntilStable = 2 * time.Second
	res, err := w.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "server down") || res.Summary.ReadsFailed != 1 {
		t.Errorf("reads failed %d, output:\n%s\nwant 1 and no server down", res.Summary.ReadsFailed, out.String())
	}
	if !strings.Contains(errOut.String(), "got nothing, the servers' last state stands: nothing observed: cannot list the identity leases") {
		t.Errorf("stderr %q", errOut.String())
	}
	if code := exitCode(watchResult(res)); code != ExitIncomplete {
		t.Errorf("exit %d, want %d", code, ExitIncomplete)
	}
}

// The lease watch's failures are said once per outage; its recovery once too; the lease sets
// it delivers are the leases listed.
func TestStartLeaseWatch(t *testing.T) {
	var (
		mu       sync.Mutex
		allowed  bool
		failures int
	)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ok := allowed
		if !ok {
			failures++
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case !ok:
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,"message":"leases is forbidden"}`)
		case r.URL.Query().Get("watch") == "":
			fmt.Fprint(w, `{"kind":"LeaseList","apiVersion":"coordination.k8s.io/v1","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"apiserver-a","labels":{"kubernetes.io/hostname":"kas-a"}},"spec":{"holderIdentity":"a_1"}}]}`)
		default: // a quiet watch: accepted, then no event
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}
	}))
	defer ts.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var errOut syncBuffer
	m := &watch.LeaseWatchMetrics{}
	ch := startLeaseWatch(ctx, &rest.Config{Host: ts.URL}, &errOut, 2*time.Second, m)
	time.Sleep(1700 * time.Millisecond) // attempts at 0, 0.5s, 1.5s (backoff doubling)
	mu.Lock()
	allowed = true
	n := failures
	mu.Unlock()
	var set []watch.Lease
	select {
	case set = <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("no lease set after the watch was allowed")
	}
	time.Sleep(50 * time.Millisecond)
	got := errOut.String()
	if n < 2 || strings.Count(got, "warning: cannot watch the identity leases in kube-system") != 1 || !strings.Contains(got, "re-reading every 2s only") ||
		strings.Count(got, "[watch] watching the identity leases again") != 1 {
		t.Errorf("%d failures; stderr:\n%s\nwant one warning and one recovery line", n, got)
	}
	if len(set) != 1 || set[0].Name != "apiserver-a" || set[0].Hostname != "kas-a" || set[0].Holder != "a_1" {
		t.Errorf("lease set %+v", set)
	}
	// The exporter's view: a restart per failure, up once a watch request was accepted, and
	// when it last heard from the server.
	reg := prometheus.NewRegistry()
	reg.MustRegister(m)
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := gatheredValues(t, reg)
		if got["mvpctl_lease_watch_up"] == 1 && got["mvpctl_lease_watch_restarts_total"] == float64(n) &&
			time.Since(time.Unix(int64(got["mvpctl_lease_watch_last_event_timestamp_seconds"]), 0)) < 10*time.Second {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("lease watch metrics %v: want up 1, %d restarts, a last event within 10s", got, n)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// gatheredValues is every unlabelled series of reg by name.
func gatheredValues(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			switch {
			case m.GetGauge() != nil:
				out[mf.GetName()] = m.GetGauge().GetValue()
			case m.GetCounter() != nil:
				out[mf.GetName()] = m.GetCounter().GetValue()
			}
		}
	}
	return out
}

// syncBuffer is a bytes.Buffer safe for the lease watch's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
