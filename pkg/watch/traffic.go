package watch

import (
	"sort"
	"time"

	"github.com/mvpctl/mvpctl/pkg/proxytraffic"
)

// The events of the proxy counters (docs/behaviour.md §9), one per server, GVR and code or
// type, with what was counted since the last sample.
const (
	// Proxied: requests the server forwarded to a peer (apiserver_rerouted_request_total),
	// by final code. The server's own peer-discovery fetches are not among them (1.36+).
	Proxied = EventKind("proxied")
	// ProxyErrors: 503s of endpoint resolution (apiserver_peer_proxy_errors_total, 1.36+).
	ProxyErrors = EventKind("proxy-errors")
	// DiscoverySyncErrors: failed peer-discovery syncs
	// (apiserver_peer_discovery_sync_errors_total, 1.36+).
	DiscoverySyncErrors = EventKind("discovery-sync-errors")
)

// Traffic is what one traffic event counted.
type Traffic struct {
	Code  string  `json:"code,omitempty"`
	Type  string  `json:"type,omitempty"`
	Count float64 `json:"count"`
	// NoGVR: the server's counters carry no GVR (before 1.36): GVR is empty, and its own
	// peer-discovery fetches cannot be told from user requests.
	NoGVR bool `json:"noGVR,omitempty"`
}

// TrafficEvents are the events of one sample: per server, what it counted since the last.
func TrafficEvents(servers []proxytraffic.Server, at time.Time) []Event {
	var events []Event
	for _, s := range servers {
		if !s.Read {
			continue
		}
		for _, p := range s.Proxied {
			events = append(events, Event{Time: at, Type: Proxied, Server: s.Name, GVR: p.GVR,
				Traffic: &Traffic{Code: p.Code, Count: p.Count, NoGVR: !s.ByGVR}})
		}
		for _, e := range s.EndpointErrors {
			events = append(events, Event{Time: at, Type: ProxyErrors, Server: s.Name, GVR: e.GVR,
				Traffic: &Traffic{Type: e.Type, Count: e.Count}})
		}
		for _, typ := range sortedTypes(s.SyncErrors) {
			events = append(events, Event{Time: at, Type: DiscoverySyncErrors, Server: s.Name,
				Traffic: &Traffic{Type: typ, Count: s.SyncErrors[typ]}})
		}
	}
	return events
}

func sortedTypes(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TrafficTotal is one counter's total over the watch.
type TrafficTotal struct {
	Type   EventKind `json:"type"`
	Server string    `json:"server"`
	GVR    string    `json:"gvr,omitempty"`
	Code   string    `json:"code,omitempty"`
	// ErrorType is the type label of proxy-errors and discovery-sync-errors.
	ErrorType string  `json:"errorType,omitempty"`
	Count     float64 `json:"count"`
}

// TrafficDoc is the summary's account of the proxy counters.
type TrafficDoc struct {
	Totals []TrafficTotal `json:"totals"`
	// DiscoveryFetches are, per server, its own fetches of its peers' discovery: counted by
	// the rerouted-request metric with an empty GVR (1.36+), not user traffic.
	DiscoveryFetches map[string]float64 `json:"discoveryFetches,omitempty"`
	// NotRead are the servers whose counters could never be read, with why (the first
	// reason): their traffic is unknown.
	NotRead map[string]string `json:"notRead,omitempty"`
}

// TrafficTotals adds up the samples of a watch.
type TrafficTotals struct {
	totals    map[TrafficTotal]float64 // keyed with Count zero
	discovery map[string]float64
	notRead   map[string]string
	read      map[string]bool // servers read at least once
}

// NewTrafficTotals starts at zero.
func NewTrafficTotals() *TrafficTotals {
	return &TrafficTotals{totals: map[TrafficTotal]float64{}, discovery: map[string]float64{}, notRead: map[string]string{}, read: map[string]bool{}}
}

// Add counts one sample.
func (t *TrafficTotals) Add(servers []proxytraffic.Server) {
	for _, s := range servers {
		if !s.Read {
			if _, ok := t.notRead[s.Name]; !ok && !t.read[s.Name] {
				t.notRead[s.Name] = s.Note
			}
			continue
		}
		t.read[s.Name] = true
		delete(t.notRead, s.Name)
		t.discovery[s.Name] += s.DiscoveryFetches
		for _, e := range TrafficEvents([]proxytraffic.Server{s}, time.Time{}) {
			k := TrafficTotal{Type: e.Type, Server: e.Server, GVR: e.GVR}
			if e.Type == Proxied {
				k.Code = e.Traffic.Code
			} else {
				k.ErrorType = e.Traffic.Type
			}
			t.totals[k] += e.Traffic.Count
		}
	}
}

// Doc is the totals, sorted by type, server, GVR, code and error type.
func (t *TrafficTotals) Doc() TrafficDoc {
	d := TrafficDoc{Totals: []TrafficTotal{}}
	for k, n := range t.totals {
		k.Count = n
		d.Totals = append(d.Totals, k)
	}
	sort.Slice(d.Totals, func(i, j int) bool {
		a, b := d.Totals[i], d.Totals[j]
		switch {
		case a.Type != b.Type:
			return a.Type < b.Type
		case a.Server != b.Server:
			return a.Server < b.Server
		case a.GVR != b.GVR:
			return a.GVR < b.GVR
		case a.Code != b.Code:
			return a.Code < b.Code
		}
		return a.ErrorType < b.ErrorType
	})
	for s, n := range t.discovery {
		if n > 0 {
			if d.DiscoveryFetches == nil {
				d.DiscoveryFetches = map[string]float64{}
			}
			d.DiscoveryFetches[s] = n
		}
	}
	if len(t.notRead) > 0 {
		d.NotRead = t.notRead
	}
	return d
}
