package watch

import (
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/report"
)

// The report kinds of `mvpctl watch -o json`: one WatchEvent document per line while the
// watch runs, one WatchSummary at the end.
const (
	EventDocKind   = "WatchEvent"
	SummaryDocKind = "WatchSummary"
)

// EventDoc is one event as `mvpctl watch -o json` streams it.
type EventDoc struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Time       time.Time `json:"time"`
	Type       EventKind `json:"type"`
	Server     string    `json:"server"`
	// Version is the server's version when the event was seen (the last known one for a
	// server that is down).
	Version string `json:"version,omitempty"`
	GVR     string `json:"gvr,omitempty"`
	From    string `json:"from,omitempty"`
	To      string `json:"to,omitempty"`
	// Error is why a server is down (server-down).
	Error  string     `json:"error,omitempty"`
	Window *WindowDoc `json:"window,omitempty"`
	// Lease is the identity lease of a lease event (lease-added, lease-gone,
	// lease-new-holder, lease-address-changed: From and To are holders or addresses;
	// lease-stale: Since is its last renewal, LeaseSeconds its duration).
	Lease        string     `json:"lease,omitempty"`
	Since        *time.Time `json:"since,omitempty"`
	LeaseSeconds float64    `json:"leaseSeconds,omitempty"`
	// Traffic is what a proxied, proxy-errors or discovery-sync-errors event counted since
	// the last sample of the server's counters.
	Traffic *Traffic `json:"traffic,omitempty"`
	// APIService names the aggregated APIService of an apiservice-unavailable or
	// apiservice-available event; From and To are its Available condition.
	APIService string `json:"apiService,omitempty"`

	// ToOutcome is, for outcome-changed, the outcome of the cell To writes: what a text line
	// colours it by. Not part of the document.
	ToOutcome mvp.Outcome `json:"-"`
	// Label is how text lines name the server's version: from→to when it changed in the
	// read that saw the event ("" otherwise). Not part of the document.
	Label string `json:"-"`
}

// WindowDoc is a Window with its duration in seconds, as reports print it.
type WindowDoc struct {
	Server      string             `json:"server"`
	GVR         string             `json:"gvr"`
	Outcome     mvp.Outcome        `json:"outcome"`
	Unavailable mvp.Unavailable503 `json:"unavailable,omitempty"`
	Opened      time.Time          `json:"opened"`
	// Closed is unset while the window is open.
	Closed *time.Time `json:"closed,omitempty"`
	// Seconds is how long the window lasted, or has lasted so far when it is still open.
	Seconds  float64  `json:"seconds"`
	Open     bool     `json:"open,omitempty"`
	ServedBy []string `json:"servedBy"`
}

// NewEventDoc is e as a document; version and errText are the server's, from the snapshot.
func NewEventDoc(e Event, version, errText string) EventDoc {
	d := EventDoc{APIVersion: report.APIVersion, Kind: EventDocKind, Time: e.Time, Type: e.Type, Server: e.Server,
		Version: version, GVR: e.GVR, From: e.From, To: e.To, ToOutcome: e.ToOutcome, Error: errText, Lease: e.Lease,
		LeaseSeconds: e.LeaseDuration.Seconds(), Traffic: e.Traffic, APIService: e.APIService}
	if !e.Since.IsZero() {
		since := e.Since
		d.Since = &since
	}
	if e.Window != nil {
		w := NewWindowDoc(*e.Window)
		d.Window = &w
	}
	return d
}

// NewWindowDoc is w as a document.
func NewWindowDoc(w Window) WindowDoc {
	d := WindowDoc{Server: w.Server, GVR: w.GVR, Outcome: w.Outcome, Unavailable: w.Unavailable, Opened: w.Opened,
		Seconds: w.Duration.Seconds(), Open: w.Closed.IsZero(), ServedBy: append([]string{}, w.ServedBy...)}
	if !w.Closed.IsZero() {
		c := w.Closed
		d.Closed = &c
	}
	return d
}

// SummaryDoc is what `mvpctl watch -o json` prints last: every window seen.
type SummaryDoc struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	From       time.Time `json:"from"`
	To         time.Time `json:"to"`
	// Snapshots is how many snapshots were taken; ReadsFailed how many reads gave none (every
	// server then counted as down).
	Snapshots   int `json:"snapshots"`
	ReadsFailed int `json:"readsFailed"`
	// LeaseTriggeredReads are the snapshots taken because an identity lease changed (the
	// others were taken on the interval).
	LeaseTriggeredReads int `json:"leaseTriggeredReads,omitempty"`
	// LeasesNotListed are the reads whose identity leases could not be listed: they read the
	// servers found otherwise, and other apiservers, or down ones, were not known.
	LeasesNotListed int `json:"leasesNotListed,omitempty"`
	// Stopped says why the watch ended: interrupted, stable, timeout.
	Stopped string      `json:"stopped"`
	Windows []WindowDoc `json:"windows"`
	// Traffic totals the proxy counters over the watch (absent with --metrics=false).
	Traffic *TrafficDoc `json:"traffic,omitempty"`
}

// NewSummaryDoc is s as a document.
func NewSummaryDoc(s Summary) SummaryDoc {
	d := SummaryDoc{APIVersion: report.APIVersion, Kind: SummaryDocKind, From: s.From, To: s.To, Windows: []WindowDoc{}}
	for _, w := range s.Windows {
		d.Windows = append(d.Windows, NewWindowDoc(w))
	}
	return d
}
