package e2e

// The comparison engine of the scenarios (scenarios_test.go): build the requests from a
// snapshot, observe each request on each running apiserver (pkg/probe), ask the real
// mvpctl binary what it predicts (`mvpctl explain -o json`), and put both in one table.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/probe"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
	"github.com/mvpctl/mvpctl/test/e2e/harness"
)

// snapFile is a snapshot written by `mvpctl snapshot`, and where it is.
type snapFile struct {
	snapshot.Snapshot
	Path string `json:"-"`
}

// mvpRequest is one HTTP request whose routing is predicted and observed.
type mvpRequest struct {
	Method string
	Path   string // path and query
	// Why says what the request covers (shown in the table).
	Why string
	// HeaderProxied: sent with x-kubernetes-peer-proxied: true, and predicted with
	// `explain --header-proxied`.
	HeaderProxied bool
	// OnlyOn, for a request about a GVR that not every server serves, names the servers
	// of the snapshot it was computed from that serve it (see expectSkew).
	OnlyOn []string
}

func (r mvpRequest) String() string {
	s := r.Method + " " + r.Path
	if r.HeaderProxied {
		s += " +hdr"
	}
	return s
}

func withHeader(reqs []mvpRequest) []mvpRequest {
	out := make([]mvpRequest, len(reqs))
	for i, r := range reqs {
		r.HeaderProxied = true
		out[i] = r
	}
	return out
}

// explainDoc is the part of `kind: Explanation` (docs/explanation.md) the suite reads.
type explainDoc struct {
	Kind    string `json:"kind"`
	Request struct {
		HeaderProxied bool `json:"headerProxied"`
		RequestInfo   struct {
			IsResourceRequest bool `json:"isResourceRequest"`
		} `json:"requestInfo"`
	} `json:"request"`
	Servers     []explainDecision `json:"servers"`
	Unreachable []struct {
		Name  string `json:"name"`
		Error string `json:"error"`
	} `json:"unreachable"`
}

// explainDecision is one Decision of the Explanation contract.
type explainDecision struct {
	Server      string   `json:"server"`
	Outcome     string   `json:"outcome"`
	Status      *int     `json:"status"`
	Unavailable string   `json:"unavailable"`
	Peers       []string `json:"peers"`
	Candidates  []struct {
		Server   string `json:"server"`
		Resolves bool   `json:"resolves"`
	} `json:"candidates"`
	Reason       string   `json:"reason"`
	Inferred     bool     `json:"inferred"`
	Alternatives []string `json:"alternatives"`
	// Timeline is what follows a peer's crash (crashtimeline_test.go).
	Timeline []explainSwitch `json:"timeline"`
}

// key is the outcome in the shared vocabulary: local, proxied, not-found,
// unavailable/endpoint-resolution, unavailable/transport.
func (p explainDecision) key() string {
	return mvp.OutcomeKey(mvp.Outcome(p.Outcome), mvp.Unavailable503(p.Unavailable))
}

func (p explainDecision) text() string {
	s := p.key()
	if p.Outcome == "proxied" {
		var to []string
		for _, c := range p.Candidates {
			if c.Resolves {
				to = append(to, c.Server)
			}
		}
		s += "→" + strings.Join(to, ",")
	}
	if p.Status != nil {
		s += fmt.Sprintf(" %d", *p.Status)
	}
	if p.Inferred {
		s += " (inferred)"
	}
	return s
}

func observedKey(o probe.Observed) string { return mvp.OutcomeKey(o.Outcome, o.Unavailable) }

// cmpRow is one (request, server) comparison.
type cmpRow struct {
	Req       mvpRequest
	Server    string // the harness's name
	SnapName  string // its name in the snapshot (see snapName)
	Predicted string
	Observed  string
	HTTP      string // normal/forced-local status codes
	Body      string // excerpt of the normal answer's body
	At        time.Duration
	Agree     bool
	Note      string
}

// routeObservation is what one server did with one request.
type routeObservation struct {
	obs    probe.Observed
	normal *harness.Response
	local  *harness.Response
	at     time.Time
	err    error
	down   bool
}

// observeRoute sends req to s: normally and forced local (the loop-prevention header), or,
// for a request that carries the header itself, once. pkg/probe classifies and
// combines the answers.
func observeRoute(ctx context.Context, s *harness.Server, req mvpRequest) routeObservation {
	send := func(forced bool) (probe.Classification, *harness.Response, error) {
		h := http.Header{"Accept": {"application/json"}}
		if forced {
			h.Set(probe.ForcedLocalHeader, probe.ForcedLocalValue)
		}
		r, err := s.Do(ctx, req.Method, req.Path, h, nil)
		if err != nil {
			return probe.Classification{}, nil, err
		}
		return probe.Classify(probe.Observation{StatusCode: r.StatusCode, ContentType: r.ContentType, Body: r.Body}), r, nil
	}
	var o routeObservation
	o.at = time.Now()
	n, rn, err := send(req.HeaderProxied)
	if err != nil {
		o.err = err
		return o
	}
	o.normal = rn
	if req.HeaderProxied {
		// The request already is "forced local": what it gets is what the server does by itself.
		o.obs, o.local = probe.Combine(n, n), rn
		return o
	}
	l, rl, err := send(true)
	if err != nil {
		o.err = err
		return o
	}
	o.obs, o.local = probe.Combine(n, l), rl
	return o
}

// inParallel runs f(i) for i in [0, n) with at most k at once.
func inParallel(n, k int, f func(i int)) {
	sem := make(chan struct{}, k)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			f(i)
		}(i)
	}
	wg.Wait()
}

// mvpctlExplain runs `mvpctl explain -o json --snapshot FILE [--header-proxied] METHOD PATH`:
// one call gives every server's decision.
func mvpctlExplain(t testing.TB, snap snapFile, req mvpRequest) (explainDoc, error) {
	args := []string{"explain", "-o", "json", "--snapshot", snap.Path}
	if req.HeaderProxied {
		args = append(args, "--header-proxied")
	}
	r := runMvpctl(t, append(args, req.Method, req.Path)...)
	// 2: the snapshot is partial (a server could not be read); the JSON is still printed.
	if r.Exit != 0 && r.Exit != 2 {
		return explainDoc{}, fmt.Errorf("%s", r)
	}
	var e explainDoc
	if err := json.Unmarshal(r.Stdout, &e); err != nil || e.Kind != "Explanation" {
		return explainDoc{}, fmt.Errorf("%s\nstdout is not an Explanation (%v): %.300s", r, err, r.Stdout)
	}
	if e.Request.HeaderProxied != req.HeaderProxied {
		return e, fmt.Errorf("explanation's request.headerProxied = %v, want %v", e.Request.HeaderProxied, req.HeaderProxied)
	}
	return e, nil
}

// agrees says whether an observation agrees with a prediction.
func agrees(p explainDecision, o routeObservation) (bool, string) {
	got, want := observedKey(o.obs), p.key()
	agree, note := got == want, ""
	if !agree {
		for _, a := range p.Alternatives { // "proxied with probability 1/2", "unavailable/transport with ..."
			alt := strings.Fields(a)
			if len(alt) > 0 && alt[0] == got {
				agree, note = true, "an alternative of the random peer choice"
			}
		}
	}
	if agree && p.Status != nil && o.normal.StatusCode != *p.Status {
		agree, note = false, fmt.Sprintf("status %d, predicted %d", o.normal.StatusCode, *p.Status)
	}
	if !agree && note == "" {
		note = "observed: " + o.obs.Why + "; mvpctl: " + p.Reason
	}
	return agree, note
}

// routingTable is the predicted/observed table of one scenario step.
type routingTable struct {
	Title string
	Rows  []cmpRow
	since bool // show the AT column
}

func (c *routingTable) disagreements() []cmpRow {
	var out []cmpRow
	for _, r := range c.Rows {
		if !r.Agree {
			out = append(out, r)
		}
	}
	return out
}

func (c *routingTable) table(rows []cmpRow, withNote bool) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	hdr := "REQUEST\tSERVER\tPREDICTED\tOBSERVED\tHTTP\t"
	if c.since {
		hdr += "AT\t"
	}
	hdr += "BODY"
	if withNote {
		hdr += "\tNOTE"
	}
	fmt.Fprintln(w, hdr)
	for _, r := range rows {
		mark := ""
		if !r.Agree {
			mark = "  ✗"
		}
		line := fmt.Sprintf("%s\t%s\t%s\t%s%s\t%s\t", r.Req, r.Server, r.Predicted, r.Observed, mark, r.HTTP)
		if c.since {
			line += fmt.Sprintf("+%.1fs\t", r.At.Seconds())
		}
		line += r.Body
		if withNote {
			line += "\t" + r.Note
		}
		fmt.Fprintln(w, line)
	}
	w.Flush()
	return b.String()
}

// compareRouting observes every request on every running server of cp (all observations
// first, in parallel, since some scenarios are racing a TTL), then asks mvpctl for its
// predictions from snap and compares. since, if not zero, is the reference time of the
// AT column (e.g. the moment a server was killed). It logs the whole table and fails t
// with the table of disagreements.
func compareRouting(t *testing.T, ctx context.Context, cp *harness.ControlPlane, snap snapFile, reqs []mvpRequest, since time.Time, title string) *routingTable {
	t.Helper()
	servers := cp.Servers()
	obs := make([][]routeObservation, len(reqs))
	for i := range obs {
		obs[i] = make([]routeObservation, len(servers))
	}
	t0 := time.Now()
	inParallel(len(reqs)*len(servers), 8, func(k int) {
		i, j := k/len(servers), k%len(servers)
		if !servers[j].Running() {
			obs[i][j] = routeObservation{down: true, at: time.Now()}
			return
		}
		obs[i][j] = observeRoute(ctx, servers[j], reqs[i])
	})
	tObs := time.Since(t0)

	t1 := time.Now()
	exps := make([]explainDoc, len(reqs))
	errs := make([]error, len(reqs))
	inParallel(len(reqs), 4, func(i int) { exps[i], errs[i] = mvpctlExplain(t, snap, reqs[i]) })
	tExp := time.Since(t1)

	c := &routingTable{Title: title, since: !since.IsZero()}
	for i, req := range reqs {
		if errs[i] != nil {
			t.Errorf("%s: %v", req, errs[i])
			continue
		}
		e := exps[i]
		pred := map[string]explainDecision{}
		for _, d := range e.Servers {
			pred[d.Server] = d
		}
		unreach := map[string]string{}
		for _, u := range e.Unreachable {
			unreach[u.Name] = u.Error
		}
		for j, s := range servers {
			o := obs[i][j]
			r := cmpRow{Req: req, Server: s.Name}
			if !since.IsZero() {
				r.At = o.at.Sub(since)
			}
			name := snapName(snap, s)
			r.SnapName = name
			p, predicted := pred[name]
			_, isUnreachable := unreach[name]
			switch {
			case o.down:
				r.Observed = "down"
				switch {
				case isUnreachable:
					r.Predicted, r.Agree = "unreachable", true
				case predicted:
					r.Predicted, r.Note = p.text(), "a server that is down was evaluated"
				default:
					r.Predicted, r.Agree = "absent", true
				}
			case o.err != nil:
				r.Observed, r.Note = "error", o.err.Error()
				r.Predicted = "?"
				if predicted {
					r.Predicted = p.text()
				}
			case !predicted:
				r.Observed = observedKey(o.obs)
				r.Predicted = "absent"
				if isUnreachable {
					r.Predicted = "unreachable"
				}
				r.Note = "a running server is missing from the prediction"
				r.HTTP, r.Body = httpCodes(o), bodyExcerpt(o.normal)
			default:
				r.Predicted, r.Observed = p.text(), observedKey(o.obs)
				r.HTTP, r.Body = httpCodes(o), bodyExcerpt(o.normal)
				r.Agree, r.Note = agrees(p, o)
			}
			c.Rows = append(c.Rows, r)
		}
	}
	t.Logf("%s: %d requests × %d servers; observed in %s, %d mvpctl explain calls in %s\n%s",
		title, len(reqs), len(servers), tObs.Round(time.Millisecond), len(reqs), tExp.Round(time.Millisecond), c.table(c.Rows, false))
	if bad := c.disagreements(); len(bad) > 0 {
		t.Errorf("%s: mvpctl's prediction disagrees with the apiservers on %d of %d (request, server) pairs:\n%s",
			title, len(bad), len(c.Rows), c.table(bad, true))
	}
	return c
}

// snapName is the name under which snap records harness server s: the reachable entry
// mvpctl reached at s's URL (a server matched to no identity lease is named by its
// host:port), else the entry named after s's hostname.
func snapName(snap snapFile, s *harness.Server) string {
	for _, v := range snap.Servers {
		if v.Reachable && strings.TrimSuffix(v.Endpoint, "/") == s.URL {
			return v.Name
		}
	}
	return s.Name
}

func httpCodes(o routeObservation) string {
	if o.normal == nil {
		return ""
	}
	if o.local == nil || o.local == o.normal {
		return fmt.Sprint(o.normal.StatusCode)
	}
	return fmt.Sprintf("%d/%d", o.normal.StatusCode, o.local.StatusCode)
}

func bodyExcerpt(r *harness.Response) string {
	if r == nil {
		return ""
	}
	s := strings.Join(strings.Fields(string(r.Body)), " ")
	if st := probe.ParseStatus(r.ContentType, r.Body); st != nil {
		s = fmt.Sprintf("Status %s %q", st.Reason, st.Message)
		if st.Details != nil && st.Details.Name != "" {
			s += " (" + st.Details.Kind + " " + st.Details.Name + ")"
		}
	} else if strings.HasPrefix(s, "{") {
		// A served object or list: its kind is enough.
		var m struct{ Kind string }
		if json.Unmarshal(r.Body, &m) == nil && m.Kind != "" {
			s = m.Kind
		} else if i := strings.Index(s, `"type":`); i >= 0 { // a watch stream
			s = "watch stream " + s[i:]
		}
	}
	if len(s) > 70 {
		s = s[:70] + "…"
	}
	return s
}

// expectSkew checks the point of a skew scenario: for every request about a GVR that
// only some servers served (mvpRequest.OnlyOn), a server serving it is observed local
// (or is down), and any other server is observed as want.
func (c *routingTable) expectSkew(t *testing.T, want string) {
	t.Helper()
	n := 0
	for _, r := range c.Rows {
		if r.Req.OnlyOn == nil {
			continue
		}
		exp := want
		if hasString(r.Req.OnlyOn, r.SnapName) {
			exp = string(mvp.Local)
			if r.Observed == "down" {
				continue
			}
		} else {
			n++
		}
		if r.Observed != exp {
			t.Errorf("%s: %s (%s) on %s observed %s, the scenario expects %s (%s)", c.Title, r.Req, r.Req.Why, r.Server, r.Observed, exp, r.Body)
		}
	}
	if n == 0 {
		t.Errorf("%s: no request about a GVR only some servers serve was sent to a server lacking it", c.Title)
	}
}

// expect checks the scenario's point: that the observed outcome of the rows for server
// whose path starts with prefix is want (so a scenario cannot pass by exercising
// nothing). It returns how many rows matched.
func (c *routingTable) expect(t *testing.T, server, prefix, want string) int {
	t.Helper()
	n := 0
	for _, r := range c.Rows {
		if r.Server != server || !strings.HasPrefix(r.Req.Path, prefix) {
			continue
		}
		n++
		if r.Observed != want {
			t.Errorf("%s: %s on %s observed %s, the scenario expects %s (%s)", c.Title, r.Req, server, r.Observed, want, r.Body)
		}
	}
	if n == 0 {
		t.Errorf("%s: no request %s* on %s was compared", c.Title, prefix, server)
	}
	return n
}

// --- requests from a snapshot ---

type gvrKey struct{ Group, Version, Resource string }

func (k gvrKey) String() string {
	if k.Group == "" {
		return "core/" + k.Version + "/" + k.Resource
	}
	return k.Group + "/" + k.Version + "/" + k.Resource
}

func gvrOf(r snapshot.Resource) gvrKey { return gvrKey{r.Group, r.Version, r.Resource} }

// collectionPath is the list path of r (namespace "default" when namespaced).
func collectionPath(r snapshot.Resource) string {
	p := "/apis/" + r.Group + "/" + r.Version
	if r.Group == "" {
		p = "/api/" + r.Version
	}
	if r.Namespaced {
		p += "/namespaces/default"
	}
	return p + "/" + r.Resource
}

func hasString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// resourceRequests are the requests that exercise GVR r: list (or, without the list
// verb, a GET of the collection path), get of a missing name, a subresource of a
// missing object, and a watch with timeoutSeconds=1.
func resourceRequests(r snapshot.Resource, why string, onlyOn []string) []mvpRequest {
	c := collectionPath(r)
	var out []mvpRequest
	defer func() {
		for i := range out {
			out[i].OnlyOn = onlyOn
		}
	}()
	if hasString(r.Verbs, "list") {
		out = append(out, mvpRequest{Method: "GET", Path: c, Why: why + ": list"})
	} else if !hasString(r.Verbs, "get") {
		out = append(out, mvpRequest{Method: "GET", Path: c, Why: why + ": GET collection (verbs " + strings.Join(r.Verbs, ",") + ")"})
	}
	if hasString(r.Verbs, "get") {
		out = append(out, mvpRequest{Method: "GET", Path: c + "/e2e-missing", Why: why + ": get of a missing name"})
	}
	if len(r.Subresources) > 0 {
		sub := r.Subresources[0]
		if hasString(r.Subresources, "status") {
			sub = "status"
		}
		out = append(out, mvpRequest{Method: "GET", Path: c + "/e2e-missing/" + sub, Why: why + ": subresource " + sub})
	}
	if hasString(r.Verbs, "watch") {
		out = append(out, mvpRequest{Method: "GET", Path: c + "?watch=1&timeoutSeconds=1", Why: why + ": watch"})
	}
	return out
}

// servedBy indexes, per GVR, the reachable servers of snap that serve it themselves.
func servedBy(snap snapFile) (byGVR map[gvrKey][]string, res map[gvrKey]snapshot.Resource, reachable []string) {
	byGVR, res = map[gvrKey][]string{}, map[gvrKey]snapshot.Resource{}
	for _, s := range snap.Servers {
		if !s.Reachable {
			continue
		}
		reachable = append(reachable, s.Name)
		for _, r := range s.Resources {
			k := gvrOf(r)
			byGVR[k] = append(byGVR[k], s.Name)
			if _, ok := res[k]; !ok {
				res[k] = r
			}
		}
	}
	return byGVR, res, reachable
}

// skewRequests covers every GVR that some reachable server of snap serves and another
// does not (and every subresource some server lacks), with resourceRequests, plus the
// discovery document of each such group/version (never proxied).
func skewRequests(t *testing.T, snap snapFile) []mvpRequest {
	t.Helper()
	byGVR, res, reachable := servedBy(snap)
	var keys []gvrKey
	for k := range byGVR {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	var out []mvpRequest
	gvs := map[string]bool{}
	for _, k := range keys {
		by := byGVR[k]
		if len(by) < len(reachable) {
			out = append(out, resourceRequests(res[k], k.String()+" only on "+strings.Join(by, ","), by)...)
			gv := strings.TrimSuffix(collectionPath(snapshot.Resource{Group: k.Group, Version: k.Version}), "/")
			if !gvs[gv] {
				gvs[gv] = true
				out = append(out, mvpRequest{Method: "GET", Path: gv, Why: "discovery of " + gv + " (non-resource, never proxied)"})
			}
			continue
		}
		// Served everywhere: does every server list the same subresources?
		subs := map[string]int{}
		for _, s := range snap.Servers {
			for _, r := range s.Resources {
				if s.Reachable && gvrOf(r) == k {
					for _, sub := range r.Subresources {
						subs[sub]++
					}
				}
			}
		}
		for sub, n := range subs {
			if n < len(reachable) {
				out = append(out, mvpRequest{Method: "GET", Path: collectionPath(res[k]) + "/e2e-missing/" + sub,
					Why: fmt.Sprintf("%s/%s on %d of %d servers", k, sub, n, len(reachable))})
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no GVR differs between the servers of %s: the scenario would prove nothing", snap.Path)
	}
	return out
}

// sharedRequests is a sample of GVRs every server serves: a namespaced list, a get of a
// missing name, a subresource of an existing cluster-scoped object, a cluster-scoped
// list, a watch with timeoutSeconds=1, and a group nobody serves.
func sharedRequests() []mvpRequest {
	return []mvpRequest{
		{Method: "GET", Path: "/api/v1/namespaces/default/configmaps", Why: "shared: list, namespaced"},
		{Method: "GET", Path: "/api/v1/namespaces/default/configmaps/e2e-missing", Why: "shared: get of a missing name"},
		{Method: "GET", Path: "/api/v1/namespaces/default/status", Why: "shared: subresource namespaces/status, cluster-scoped"},
		{Method: "GET", Path: "/apis/rbac.authorization.k8s.io/v1/clusterroles?limit=3", Why: "shared: list, cluster-scoped"},
		{Method: "GET", Path: "/apis/apps/v1/namespaces/default/deployments/e2e-missing/scale", Why: "shared: subresource of a missing object"},
		{Method: "GET", Path: "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1", Why: "shared: watch"},
		{Method: "GET", Path: "/apis/nosuch.e2e.mvpctl.io/v1/namespaces/default/things", Why: "nobody serves the group"},
	}
}

// checkShared fails t if a request of sharedRequests is about a GVR some reachable
// server of snap does not serve (the sample would then not be "shared").
func checkShared(t *testing.T, snap snapFile) {
	t.Helper()
	byGVR, _, reachable := servedBy(snap)
	for _, k := range []gvrKey{{"", "v1", "configmaps"}, {"", "v1", "namespaces"}, {"rbac.authorization.k8s.io", "v1", "clusterroles"}, {"apps", "v1", "deployments"}} {
		if len(byGVR[k]) != len(reachable) {
			t.Errorf("%s is served by %v only, not by every server %v", k, byGVR[k], reachable)
		}
	}
}
