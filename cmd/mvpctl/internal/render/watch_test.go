package render

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/watch"
)

var watchT0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

const (
	ansiCyan  = "\x1b[36m"
	ansiRed   = "\x1b[31m"
	ansiReset = "\x1b[0m"
)

// TestWatchLines: one line per event kind.
func TestWatchLines(t *testing.T) {
	at := watchT0.Add(4*time.Second + 250*time.Millisecond)
	win := &watch.Window{Server: "kas-b", GVR: "batch/v1/jobs", Outcome: mvp.NotFound, Opened: watchT0, ServedBy: []string{"kas-a"}}
	closed := *win
	closed.Closed, closed.Duration = at, at.Sub(watchT0)
	w503 := &watch.Window{Server: "kas-a", GVR: "resource.k8s.io/v1beta1/resourceclaims", Outcome: mvp.Unavailable, Unavailable: "transport", Opened: at, ServedBy: []string{"kas-b", "kas-c"}}
	tests := []struct {
		e       watch.Event
		version string
		errText string
		label   string
		want    string
	}{
		{watch.Event{Type: watch.ServerAdded, Server: "kas-a", To: "v1.36.3"}, "v1.36.3", "", "", "12:00:04 kas-a v1.36.3: server added"},
		{watch.Event{Type: watch.ServerAdded, Server: "kas-c"}, "", "connection refused", "", "12:00:04 kas-c version unknown: server added, down: connection refused"},
		{watch.Event{Type: watch.ServerGone, Server: "kas-a", From: "v1.36.3"}, "v1.36.3", "", "", "12:00:04 kas-a v1.36.3: server gone"},
		{watch.Event{Type: watch.ServerDown, Server: "kas-a", From: "v1.36.3"}, "v1.36.3", "connection refused", "", "12:00:04 kas-a v1.36.3: server down: connection refused"},
		{watch.Event{Type: watch.ServerUp, Server: "kas-a", From: "v1.36.3", To: "v1.37.1"}, "v1.37.1", "", "v1.36.3→v1.37.1", "12:00:04 kas-a v1.36.3→v1.37.1: server up"},
		{watch.Event{Type: watch.VersionChanged, Server: "kas-a", From: "v1.36.3", To: "v1.37.1"}, "v1.37.1", "", "v1.36.3→v1.37.1", "12:00:04 kas-a v1.36.3→v1.37.1: version changed"},
		{watch.Event{Type: watch.OutcomeChanged, Server: "kas-b", GVR: "batch/v1/jobs", From: "proxy→kas-a", To: "local"}, "v1.37.1", "", "v1.36.3→v1.37.1", "12:00:04 kas-b v1.36.3→v1.37.1: batch/v1/jobs proxy→kas-a ⇒ local"},
		{watch.Event{Type: watch.WindowOpened, Server: "kas-b", GVR: "batch/v1/jobs", To: "404", Window: win}, "v1.36.3", "", "", "12:00:04 kas-b v1.36.3: batch/v1/jobs 404 window opened (served by kas-a)"},
		{watch.Event{Type: watch.WindowOpened, Server: "kas-a", GVR: w503.GVR, To: "503", Window: w503}, "v1.37.1", "", "", "12:00:04 kas-a v1.37.1: resource.k8s.io/v1beta1/resourceclaims 503 (transport) window opened (served by kas-b,kas-c)"},
		{watch.Event{Type: watch.WindowClosed, Server: "kas-b", GVR: "batch/v1/jobs", Window: &closed}, "v1.37.1", "", "", "12:00:04 kas-b v1.37.1: batch/v1/jobs 404 window closed after 4.3s"},
		{watch.Event{Type: watch.LeaseAdded, Server: "kas-a", Lease: "apiserver-x", To: "apiserver-x_1"}, "v1.36.3", "", "", "12:00:04 kas-a v1.36.3: identity lease apiserver-x added (holder apiserver-x_1)"},
		{watch.Event{Type: watch.LeaseGone, Server: "kas-a", Lease: "apiserver-x", From: "apiserver-x_1"}, "v1.36.3", "", "", "12:00:04 kas-a v1.36.3: identity lease apiserver-x gone"},
		{watch.Event{Type: watch.LeaseNewHolder, Server: "kas-a", Lease: "apiserver-x", From: "apiserver-x_1", To: "apiserver-x_2"}, "v1.36.3", "", "", "12:00:04 kas-a v1.36.3: identity lease apiserver-x renewed by a new holder apiserver-x_2 (a new process)"},
		{watch.Event{Type: watch.LeaseAddressChanged, Server: "kas-a", Lease: "apiserver-x", From: "10.0.0.1:6443"}, "v1.36.3", "", "", "12:00:04 kas-a v1.36.3: identity lease apiserver-x: peer-advertise address 10.0.0.1:6443 ⇒ <none>"},
		{watch.Event{Type: watch.LeaseStale, Server: "kas-a", Lease: "apiserver-x", Since: watchT0, LeaseDuration: time.Hour}, "v1.36.3", "", "", "12:00:04 kas-a v1.36.3: identity lease apiserver-x stale: not renewed for 1h0m0s (last renewal 12:00:00)"},
		{watch.Event{Type: watch.Proxied, Server: "kas-b", GVR: "batch/v1/jobs", Traffic: &watch.Traffic{Code: "200", Count: 5}}, "v1.36.3", "", "", "12:00:04 kas-b v1.36.3: batch/v1/jobs proxied 5× → 200"},
		{watch.Event{Type: watch.Proxied, Server: "kas-b", Traffic: &watch.Traffic{Code: "200", Count: 5, NoGVR: true}}, "v1.35.0", "", "", "12:00:04 kas-b v1.35.0: requests of any GVR (counters before 1.36 carry none) proxied 5× → 200"},
		{watch.Event{Type: watch.ProxyErrors, Server: "kas-b", GVR: "batch/v1/jobs", Traffic: &watch.Traffic{Type: "endpoint_resolution", Count: 2}}, "v1.36.3", "", "", "12:00:04 kas-b v1.36.3: batch/v1/jobs 503 of endpoint resolution 2× (endpoint_resolution)"},
		{watch.Event{Type: watch.DiscoverySyncErrors, Server: "kas-b", Traffic: &watch.Traffic{Type: "hostport_resolution", Count: 1}}, "v1.36.3", "", "", "12:00:04 kas-b v1.36.3: peer-discovery sync failed 1× (hostport_resolution)"},
	}
	for _, tt := range tests {
		t.Run(string(tt.e.Type), func(t *testing.T) {
			tt.e.Time = at
			d := watch.NewEventDoc(tt.e, tt.version, tt.errText)
			d.Label = tt.label
			l := Event{Doc: d, Loc: time.UTC}
			if got := l.text(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// The summary's traffic section: totals, discovery fetches apart, servers not read.
func TestWatchSummaryTraffic(t *testing.T) {
	doc := watch.SummaryDoc{From: watchT0, To: watchT0.Add(10 * time.Second), Snapshots: 12, LeaseTriggeredReads: 2, Stopped: watch.StoppedInterrupted,
		Traffic: &watch.TrafficDoc{
			Totals: []watch.TrafficTotal{
				{Type: watch.DiscoverySyncErrors, Server: "kas-a", ErrorType: "hostport_resolution", Count: 3},
				{Type: watch.Proxied, Server: "kas-b", GVR: "batch/v1/jobs", Code: "200", Count: 21},
			},
			DiscoveryFetches: map[string]float64{"kas-b": 30},
			NotRead:          map[string]string{"kas-c": "GET /metrics: HTTP 403"},
		}}
	var out bytes.Buffer
	if err := (WatchSummary{Doc: doc, Loc: time.UTC}).WriteText(&out, output.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"12 snapshots (2 on an identity-lease change), 0 reads failed; stopped: interrupted.",
		"kas-b    proxied                 batch/v1/jobs   200                   21",
		"kas-b: 30 peer-discovery fetch(es) of its own, not user traffic",
		"kas-c: counters not read: GET /metrics: HTTP 403",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}

// TestWatchLineColor: a 404/503 window opening is red, an outcome that becomes proxied cyan
// and one that becomes a 503 red — the aggregator's too, whose cell begins "local": the colour
// is the event's outcome, not its text — in the text stream only.
func TestWatchLineColor(t *testing.T) {
	opened := watch.EventDoc{Type: watch.WindowOpened, Time: watchT0, Server: "kas-b", Version: "v1.36.3", GVR: "batch/v1/jobs",
		Window: &watch.WindowDoc{Outcome: mvp.NotFound, ServedBy: []string{"kas-a"}}}
	changed := watch.EventDoc{Type: watch.OutcomeChanged, Time: watchT0, Server: "kas-b", Version: "v1.36.3", GVR: "batch/v1/jobs", From: "404", To: "proxy→kas-a", ToOutcome: mvp.Proxied}
	failing := watch.EventDoc{Type: watch.OutcomeChanged, Time: watchT0, Server: "kas-b", Version: "v1.36.3", GVR: "batch/v1/jobs", From: "local", To: "local 503 (APIService unavailable)", ToOutcome: mvp.Unavailable}
	on := output.Options{Format: output.FormatText, Color: true}
	for _, tc := range []struct {
		doc  watch.EventDoc
		want string
	}{
		{opened, "12:00:00 kas-b v1.36.3: " + ansiRed + "batch/v1/jobs 404 window opened" + ansiReset + " (served by kas-a)"},
		{changed, "12:00:00 kas-b v1.36.3: batch/v1/jobs 404 ⇒ " + ansiCyan + "proxy→kas-a" + ansiReset},
		{failing, "12:00:00 kas-b v1.36.3: batch/v1/jobs local ⇒ " + ansiRed + "local 503 (APIService unavailable)" + ansiReset},
	} {
		l := Event{Doc: tc.doc, Loc: time.UTC}
		if got := l.paint(on); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
		if got := l.paint(output.Options{Format: output.FormatText}); strings.Contains(got, "\x1b[") {
			t.Errorf("without colour: %q", got)
		}
		if got := l.paint(output.Options{Format: output.FormatJSON, Color: true}); strings.Contains(got, "\x1b[") {
			t.Errorf("json: %q", got)
		}
	}
}
