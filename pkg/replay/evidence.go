package replay

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// ClientEvidence is what the cluster itself says of its clients, a typed input to the gate's
// harm (pkg/preflight): per GVR, the clients each source saw; and which sources were read,
// over what span, and which GVRs each covers. A GVR every source covers and none shows a client
// of is unused, as far as the evidence goes.
type ClientEvidence struct {
	// Sources are every source tried, read or not, in the order they are stated.
	Sources []EvidenceSource `json:"sources"`
	// WindowSeconds is the look-back the evidence had to cover to show that no client uses a
	// GVR (horizon.go), in seconds.
	WindowSeconds int64 `json:"windowSeconds,omitempty"`
	// Clients are the clients seen, by GVR (snapshot.GVR's String form).
	Clients map[string][]Client `json:"clients,omitempty"`
}

// Evidence source kinds.
const (
	// SourceRequestCounts is one apiserver's apiserver_request_total since its start.
	SourceRequestCounts = "request-counters"
)

// EvidenceSource is one source of client evidence.
type EvidenceSource struct {
	Kind string `json:"kind"`
	// Name is what was read: a server's name, a path.
	Name string `json:"name"`
	// Read is false when the source could not be read; Error says why.
	Read  bool   `json:"read"`
	Error string `json:"error,omitempty"`
	// From and To are the span the source covers, when it has one (a server's counters: its
	// process start to the read).
	From *time.Time `json:"from,omitempty"`
	To   *time.Time `json:"to,omitempty"`
	// AllGVRs: the source would show a client of any GVR (a server's counters do); else it
	// covers only the GVRs it was asked about or holds.
	AllGVRs bool `json:"allGVRs,omitempty"`
	// Objects is how many objects a manifest source held; Unmapped, how many of them are of a
	// kind no apiserver of the snapshot serves.
	Objects  int `json:"objects,omitempty"`
	Unmapped int `json:"unmapped,omitempty"`
	// Via is the GVR a managedFields source listed its objects through.
	Via string `json:"via,omitempty"`
	// Cut says the source was read in part, up to the run's evidence budget (Budget): what
	// was read is evidence, the rest was not read.
	Cut string `json:"cut,omitempty"`
}

// EvidenceCut is the client evidence past the run's budget (Budget): where the budget ran out
// (At, the first cut of a source read in part) and the sources read in part or not at all
// past it. A verdict that rests on them is partial.
type EvidenceCut struct {
	At      string
	Sources []EvidenceSource
}

// Cut is what of the evidence was cut at the run's budget; nil when nothing was.
func (e *ClientEvidence) Cut() *EvidenceCut {
	if e == nil {
		return nil
	}
	var c EvidenceCut
	for _, s := range e.Sources {
		if s.Cut == "" {
			continue
		}
		if c.At == "" && s.Cut != CutUnread {
			c.At = s.Cut
		}
		c.Sources = append(c.Sources, s)
	}
	if c.At == "" {
		return nil
	}
	return &c
}

// String says where the evidence reached the budget and which sources were read in part or
// not at all past it: one line.
func (c EvidenceCut) String() string {
	var what []string
	for _, s := range c.Sources {
		name := sourceWhat[s.Kind] + " " + s.Name
		if s.Read {
			what = append(what, fmt.Sprintf("the rest of the %s (%d object(s) read)", name, s.Objects))
		} else {
			what = append(what, "the "+name)
		}
	}
	return fmt.Sprintf("client evidence past its budget (%s): %s", c.At, strings.Join(what, ", "))
}

// CutUnread is the Cut of a source not read at all because the budget was spent before it.
const CutUnread = "not read: the budget was spent before it"

// Client is one client of a GVR as a source saw it.
type Client struct {
	Kind string `json:"kind"`
	// Name says who: a field manager, a release, FILE:LINE, or a server whose counters count
	// requests.
	Name string `json:"name"`
	// Requests is the number of requests counted (request counters), 0 for other sources.
	Requests int64 `json:"requests,omitempty"`
	// Span is the time the count covers, when known.
	Span time.Duration `json:"span,omitempty"`
}

// String names the client as a finding says it: "5 request(s) on kas-b over 3d".
func (c Client) String() string {
	if c.Kind == SourceRequestCounts || (c.Kind == SourcePrometheus && c.Requests > 0) {
		s := fmt.Sprintf("%d request(s) on %s", c.Requests, c.Name)
		if c.Kind == SourcePrometheus {
			s = fmt.Sprintf("%d request(s) on %s kept by Prometheus", c.Requests, c.Name)
		}
		if c.Span > 0 {
			s += " over " + spanText(c.Span)
		}
		return s
	}
	return c.Name
}

// RequestCountEvidence is the client evidence of a snapshot's request counters: one source per
// reachable server, and per GVR a client for each server that counted requests of it.
func RequestCountEvidence(snap *snapshot.Snapshot) ClientEvidence {
	ev := ClientEvidence{Clients: map[string][]Client{}}
	for _, srv := range snap.Servers {
		if !srv.Reachable || srv.LB != nil {
			continue
		}
		src := EvidenceSource{Kind: SourceRequestCounts, Name: srv.Name, AllGVRs: true}
		rc := srv.Requests
		switch {
		case rc == nil:
			src.Error = "not recorded in the snapshot"
		case rc.Error != "":
			src.Error = rc.Error
		}
		byGVR, err := CountsByGVR(rc)
		if rc != nil && rc.Error == "" {
			if err != nil {
				src.Error = err.Error()
			} else {
				src.Read = true
				to := rc.ReadAt
				src.From, src.To = rc.StartedAt, &to
			}
		}
		ev.Sources = append(ev.Sources, src)
		if !src.Read {
			continue
		}
		for gvr, n := range byGVR {
			ev.Clients[gvr] = append(ev.Clients[gvr], Client{Kind: SourceRequestCounts, Name: srv.Name, Requests: n, Span: rc.Span()})
		}
	}
	return ev
}

// CountsByGVR sums a server's counts per GVR (snapshot.GVR's String form), or says why they
// are not counts (RequestCounts.Check; a sum that overflows): then none of them is evidence.
func CountsByGVR(rc *snapshot.RequestCounts) (map[string]int64, error) {
	if rc == nil || rc.Error != "" {
		return nil, nil
	}
	if err := rc.Check(); err != nil {
		return nil, err
	}
	byGVR := map[string]int64{}
	for _, c := range rc.Counts {
		g := c.GVR().String()
		n, ok := snapshot.AddCounts(byGVR[g], c.Count)
		if !ok {
			return nil, fmt.Errorf("the counts of %s add up past the largest count: not counts", g)
		}
		byGVR[g] = n
	}
	return byGVR, nil
}

// Merge adds other's sources and clients to e.
func (e *ClientEvidence) Merge(other ClientEvidence) {
	e.Sources = append(e.Sources, other.Sources...)
	if e.Clients == nil {
		e.Clients = map[string][]Client{}
	}
	for gvr, cs := range other.Clients {
		e.Clients[gvr] = append(e.Clients[gvr], cs...)
	}
}

// ClientsOf are the clients of one GVR, or of every GVR of a group/version when gvr ends in "/".
func (e *ClientEvidence) ClientsOf(gvr string) []Client {
	if e == nil {
		return nil
	}
	if gv, ok := strings.CutSuffix(gvr, "/"); ok {
		var out []Client
		keys := make([]string, 0, len(e.Clients))
		for k := range e.Clients {
			if GVOf(k) == gv {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, e.Clients[k]...)
		}
		return out
	}
	return e.Clients[gvr]
}

// Covers says whether the sources read would show any client of any GVR: some source covers
// every GVR, and every source of that kind was read (a client may talk to one server only, so
// the counters of every server are needed).
func (e *ClientEvidence) Covers() bool {
	if e == nil {
		return false
	}
	kinds := map[string]bool{}
	for _, s := range e.Sources {
		if s.AllGVRs || s.Kind == SourceRequestCounts {
			kinds[s.Kind] = true
		}
	}
	for _, s := range e.Sources {
		if kinds[s.Kind] && !s.Read {
			kinds[s.Kind] = false
		}
	}
	for _, ok := range kinds {
		if ok {
			return true
		}
	}
	return false
}

// Read says what was read and over what span: "the request counters of kas-a (since it
// started 3d ago) and kas-b (...)".
func (e *ClientEvidence) Read() string {
	var parts []string
	if c := e.Counted(); c != "" {
		parts = append(parts, "the request counters of "+c)
	}
	if k := e.Kept(); k != "" {
		parts = append(parts, "the apiserver_request_total kept by "+k)
	}
	for _, s := range e.ReadSources() {
		switch s.Kind {
		case SourceManifests:
			parts = append(parts, fmt.Sprintf("manifests %s (%d object(s), %d of a kind no apiserver serves)", s.Name, s.Objects, s.Unmapped))
		case SourceHelmReleases:
			parts = append(parts, fmt.Sprintf("the manifests of %s (%d object(s))", s.Name, s.Objects))
		case SourceManagedFields:
			parts = append(parts, fmt.Sprintf("the managedFields of %d object(s) of %s (listed through %s)", s.Objects, s.Name, s.Via))
		}
	}
	return strings.Join(parts, "; ")
}

// Counted names the servers whose counters were read, each with its span: "kas-a (since it
// started 3d before 2026-11-27T12:00:00Z), kas-b (...)".
func (e *ClientEvidence) Counted() string {
	var names []string
	for _, s := range e.ReadSources() {
		if s.Kind == SourceRequestCounts {
			names = append(names, s.Name+" ("+s.spanText()+")")
		}
	}
	return strings.Join(names, ", ")
}

func (e *ClientEvidence) ReadSources() []EvidenceSource {
	if e == nil {
		return nil
	}
	var out []EvidenceSource
	for _, s := range e.Sources {
		if s.Read {
			out = append(out, s)
		}
	}
	return out
}

// Missing says which sources could not be read and why: what "may break" rests on.
func (e *ClientEvidence) Missing() string {
	if e == nil || len(e.Sources) == 0 {
		return "no request counters (a snapshot without them)"
	}
	type kindErr struct{ kind, err string }
	var errs []kindErr
	names := map[kindErr][]string{}
	for _, s := range e.Sources {
		if !s.Read {
			k := kindErr{s.Kind, s.Error}
			if names[k] == nil {
				errs = append(errs, k)
			}
			names[k] = append(names[k], s.Name)
		}
	}
	parts := make([]string, 0, len(errs))
	for _, k := range errs {
		parts = append(parts, fmt.Sprintf("%s of %s: %s", sourceWhat[k.kind], strings.Join(names[k], ", "), k.err))
	}
	return strings.Join(parts, "; ")
}

// sourceWhat names each kind of source as a sentence says it.
var sourceWhat = map[string]string{SourceRequestCounts: "request counters", SourceManagedFields: "managedFields", SourceManifests: "manifests", SourceHelmReleases: "Helm releases", SourcePrometheus: "Prometheus"}

func (s EvidenceSource) spanText() string {
	if s.From == nil || s.To == nil {
		return "since its start, time unknown"
	}
	return fmt.Sprintf("since it started %s before %s", spanText(s.To.Sub(*s.From)), s.To.UTC().Format(time.RFC3339))
}

// spanText is a duration as people say it: 3d, 5h, 12m, 40s.
func spanText(d time.Duration) string {
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	case d >= 2*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d >= 2*time.Minute:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	}
	return fmt.Sprintf("%ds", int(d.Seconds()))
}

// SourceManagedFields is the managedFields of one GVR's live objects.
const SourceManagedFields = "managed-fields"

// ManagedFieldsEvidence is the client evidence of the managedFields read: one source per GVR,
// and a client for each field manager that wrote its objects with the GVR's own
// group/version (a manager writing through another version is not a client of this one).
func ManagedFieldsEvidence(reads []snapshot.ManagedFields) ClientEvidence {
	ev := ClientEvidence{Clients: map[string][]Client{}}
	for _, mf := range reads {
		gvr := mf.GVR.String()
		to := mf.ReadAt
		src := EvidenceSource{Kind: SourceManagedFields, Name: gvr, Read: mf.Error == "", Error: mf.Error, Objects: mf.Objects, To: &to, Via: mf.Via.String()}
		if mf.Capped {
			src.Error = fmt.Sprintf("capped at %d objects: the rest not read", mf.Cap)
		}
		ev.Sources = append(ev.Sources, src)
		for _, m := range mf.Managers {
			if m.APIVersion != mf.GVR.GroupVersion() {
				continue
			}
			name := fmt.Sprintf("field manager %q (%s of %d object(s) with %s", m.Manager, strings.ToLower(m.Operation), m.Objects, m.APIVersion)
			if m.Newest != nil {
				name += ", last " + m.Newest.UTC().Format(time.RFC3339)
			}
			ev.Clients[gvr] = append(ev.Clients[gvr], Client{Kind: SourceManagedFields, Name: name + ")"})
		}
	}
	return ev
}
