package route

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func TestDecide(t *testing.T) {
	jobs := "/apis/batch/v1/namespaces/default/jobs"
	tests := []struct {
		name        string
		snap        *snapshot.Snapshot
		server      string
		method      string
		path        string
		header      bool
		outcome     mvp.Outcome
		status      int // 0 for null
		unavailable mvp.Unavailable503
		peers       []string
		inferred    bool
		stepHas     string // a step or the reason must mention this
	}{
		// DISC+AGG2 (1.36/1.37), the default era.
		{name: "served locally", snap: snap(server("a", "v1.36.3", all...), server("b", "v1.36.3", noBatch...)),
			server: "a", path: jobs, outcome: mvp.Local, peers: []string{}},
		{name: "proxied to the only peer serving it", snap: snap(server("a", "v1.36.3", all...), server("b", "v1.36.3", noBatch...)),
			server: "b", path: jobs, outcome: mvp.Proxied, peers: []string{"apiserver-a"}, stepHas: "picks one of 1"},
		{name: "real skew 1.36 to 1.37", snap: snap(server("a", "v1.37.1", all...), server("b", "v1.36.3", noBatch...)),
			server: "b", path: jobs, outcome: mvp.Proxied, peers: []string{"apiserver-a"}},
		{name: "subresource is ignored by the key", snap: snap(server("a", "v1.36.3", all...), server("b", "v1.36.3", noBatch...)),
			server: "b", method: "PUT", path: jobs + "/j/status", outcome: mvp.Proxied, peers: []string{"apiserver-a"}},
		{name: "loop-prevention header: local 404", snap: snap(server("a", "v1.36.3", all...), server("b", "v1.36.3", noBatch...)),
			server: "b", path: jobs, header: true, outcome: mvp.NotFound, status: 404, peers: []string{}, stepHas: "x-kubernetes-peer-proxied"},
		{name: "non-resource path is never proxied", snap: snap(server("a", "v1.36.3", all...), server("b", "v1.36.3", noBatch...)),
			server: "b", path: "/apis/apps/v1", outcome: mvp.Local, peers: []string{}, stepHas: "not a resource request"},
		{name: "discovery of a GV the server lacks: 404, not proxied", snap: snap(server("a", "v1.36.3", all...), server("b", "v1.36.3", noBatch...)),
			server: "b", path: "/apis/batch/v1", outcome: mvp.NotFound, status: 404, peers: []string{}, stepHas: "discovery is never proxied"},
		{name: "group discovery comes from APIService objects: local", snap: snap(server("a", "v1.36.3", all...), server("b", "v1.36.3", noBatch...)),
			server: "b", path: "/apis/batch", outcome: mvp.Local, peers: []string{}},
		{name: "health is local", snap: snap(server("a", "v1.36.3", all...)),
			server: "a", path: "/readyz", outcome: mvp.Local, peers: []string{}},
		{name: "nobody serves it: 404", snap: snap(server("a", "v1.36.3", all...), server("b", "v1.36.3", noBatch...)),
			server: "b", path: "/apis/example.com/v1/widgets", outcome: mvp.NotFound, status: 404, peers: []string{}, stepHas: "404 page not found"},
		{name: "group served, resource not: Status 404", snap: snap(server("a", "v1.36.3", all...)),
			server: "a", path: "/apis/apps/v1/widgets", outcome: mvp.NotFound, status: 404, peers: []string{}, stepHas: "Status NotFound"},
		{name: "subresource not served locally", snap: snap(server("a", "v1.36.3", all...)),
			server: "a", path: jobs + "/j/scale", outcome: mvp.NotFound, status: 404, peers: []string{}, stepHas: "subresource"},
		{name: "core group is proxied too", snap: snap(server("a", "v1.36.3", all...), server("b", "v1.36.3", "apps/v1/deployments")),
			server: "b", path: "/api/v1/namespaces/default/pods", outcome: mvp.Proxied, peers: []string{"apiserver-a"}, stepHas: `group: ""`},
		{name: "core group keyed core before 1.35", snap: snap(server("a", "v1.34.0", all...), server("b", "v1.34.0", "apps/v1/deployments")),
			server: "b", path: "/api/v1/pods", outcome: mvp.Proxied, peers: []string{"apiserver-a"}, stepHas: `group: "core"`},

		// Crashed and stopped peers.
		{name: "crashed peer, endpoint lease alive: transport 503",
			snap:   snap(down(server("a", "v1.36.3", all...), true), withAggregated(server("b", "v1.36.3", noBatch...), "apps/v1/deployments", "batch/v1/jobs")),
			server: "b", path: jobs, outcome: mvp.Unavailable, status: 503, unavailable: mvp.Transport, peers: []string{"apiserver-a"}, inferred: true, stepHas: "inferred"},
		{name: "crashed peer, endpoint lease expired: endpoint 503",
			snap:   snap(down(server("a", "v1.36.3", all...), false), withAggregated(server("b", "v1.36.3", noBatch...), "apps/v1/deployments", "batch/v1/jobs")),
			server: "b", path: jobs, outcome: mvp.Unavailable, status: 503, unavailable: mvp.EndpointResolution, peers: []string{"apiserver-a"}, inferred: true, stepHas: mvp.EndpointResolutionMessage},
		{name: "stopped peer (identity lease deleted): 404",
			snap:   snap(with(down(server("a", "v1.36.3", all...), false), func(s *snapshot.Server) { s.IdentityLease = nil }), withAggregated(server("b", "v1.36.3", noBatch...), "apps/v1/deployments", "batch/v1/jobs")),
			server: "b", path: jobs, outcome: mvp.NotFound, status: 404, peers: []string{}, stepHas: "no identity lease"},
		{name: "one of two peers crashed: proxied, 503 possible",
			snap:   snap(with(down(server("a", "v1.36.3", all...), true), func(s *snapshot.Server) { s.Resources = resources(all...) }), server("c", "v1.36.3", all...), server("b", "v1.36.3", noBatch...)),
			server: "b", path: jobs, outcome: mvp.Proxied, peers: []string{"apiserver-a", "apiserver-c"}, stepHas: "picks one of 2"},
		{name: "two of three peers crashed: 503 most likely, the healthy peer first",
			snap: snap(server("h", "v1.36.3", all...), with(down(server("c1", "v1.36.3", all...), true), func(s *snapshot.Server) { s.Resources = resources(all...) }),
				with(down(server("c2", "v1.36.3", all...), true), func(s *snapshot.Server) { s.Resources = resources(all...) }), server("b", "v1.36.3", noBatch...)),
			server: "b", path: jobs, outcome: mvp.Unavailable, status: 503, unavailable: mvp.Transport,
			peers: []string{"apiserver-h", "apiserver-c1", "apiserver-c2"}, stepHas: "picks one of 3"},

		// Filter absent.
		{name: "1.35 gate off by default: 404", snap: snap(
			with(server("a", "v1.35.4", all...), func(s *snapshot.Server) { s.PeerProxy = snapshot.PeerProxy{} }),
			with(server("b", "v1.35.4", noBatch...), func(s *snapshot.Server) { s.PeerProxy = snapshot.PeerProxy{} })),
			server: "b", path: jobs, outcome: mvp.NotFound, status: 404, peers: []string{}, inferred: true, stepHas: "gate UnknownVersionInteroperabilityProxy is off [assumed"},
		{name: "1.36 without --peer-ca-file: 404", snap: snap(server("a", "v1.36.3", all...),
			with(server("b", "v1.36.3", noBatch...), func(s *snapshot.Server) { s.PeerProxy.FilterInstalled = snapshot.Ptr(false) })),
			server: "b", path: jobs, outcome: mvp.NotFound, status: 404, peers: []string{}, stepHas: "no --peer-ca-file"},
		{name: "peer with the gate off is never learned", snap: snap(
			with(server("a", "v1.36.3", all...), func(s *snapshot.Server) { s.PeerProxy.GateEnabled = snapshot.Ptr(false) }),
			server("b", "v1.36.3", noBatch...)),
			server: "b", path: jobs, outcome: mvp.NotFound, status: 404, peers: []string{}, stepHas: "writes no endpoint lease"},
		{name: "before 1.28 there is no proxy", snap: snap(server("a", "v1.27.4", all...), server("b", "v1.27.4", noBatch...)),
			server: "b", path: jobs, outcome: mvp.NotFound, status: 404, peers: []string{}, stepHas: "predates"},
		{name: "peer without an ID is not a candidate", snap: snap(with(server("a", "v1.36.3", all...), func(s *snapshot.Server) { s.ID = ""; s.IdentityLease = nil }), server("b", "v1.36.3", noBatch...)),
			server: "b", path: jobs, outcome: mvp.NotFound, status: 404, peers: []string{}},

		// CRDs and aggregated APIs.
		{name: "1.36: CRD group is never proxied", snap: snap(
			with(server("a", "v1.36.3", all...), func(s *snapshot.Server) {
				s.Resources = append(s.Resources, res("example.com/v1/widgets", snapshot.SourceCRD))
			}),
			server("b", "v1.36.3", noBatch...)),
			server: "b", path: "/apis/example.com/v1/widgets", outcome: mvp.NotFound, status: 404, peers: []string{}, stepHas: "CustomResourceDefinition"},
		{name: "1.36: aggregated APIService group is never proxied", snap: func() *snapshot.Snapshot {
			s := snap(with(server("a", "v1.36.3", all...), func(s *snapshot.Server) { s.Resources = append(s.Resources, res("metrics.k8s.io/v1beta1/pods")) }), server("b", "v1.36.3", noBatch...))
			s.Cluster.AggregatedGroupVersions = []string{"metrics.k8s.io/v1beta1"}
			return s
		}(), server: "b", path: "/apis/metrics.k8s.io/v1beta1/pods", outcome: mvp.NotFound, status: 404, peers: []string{}, stepHas: "aggregated APIService"},
		{name: "1.34: CRD group can be proxied (no exclusion)", snap: snap(
			with(server("a", "v1.34.0", all...), func(s *snapshot.Server) {
				s.Resources = append(s.Resources, res("example.com/v1/widgets", snapshot.SourceCRD))
			}),
			server("b", "v1.34.0", noBatch...)),
			server: "b", path: "/apis/example.com/v1/widgets", outcome: mvp.Proxied, peers: []string{"apiserver-a"}},

		// Cross-version discovery: a 1.34 server learns a 1.36 peer's peer-aggregated /apis.
		{name: "1.34 routes on a 1.36 peer's aggregated view: peer answers 404", snap: snap(
			server("a", "v1.36.3", all...),
			withAggregated(server("c", "v1.36.3", noBatch...), "apps/v1/deployments", "batch/v1/jobs"),
			server("s", "v1.34.0", noBatch...)),
			server: "s", path: jobs, outcome: mvp.Proxied, peers: []string{"apiserver-a", "apiserver-c"}, stepHas: "404 from the peer"},
		{name: "1.36 routes on a peer's own view only", snap: snap(
			server("a", "v1.36.3", all...),
			withAggregated(server("c", "v1.36.3", noBatch...), "apps/v1/deployments", "batch/v1/jobs"),
			server("s", "v1.36.3", noBatch...)),
			server: "s", path: jobs, outcome: mvp.Proxied, peers: []string{"apiserver-a"}},

		{name: "crashed peer late in the endpoint window: endpoint-resolution first, transport until then",
			snap:   crashedPeerAt(-12*time.Second, 8*time.Second),
			server: "b", path: jobs, outcome: mvp.Unavailable, status: 503, unavailable: mvp.EndpointResolution, peers: []string{"apiserver-a"}, inferred: true,
			stepHas: "until then: unavailable/transport; from"},
		{name: "crashed peer early in the endpoint window: transport first, endpoint-resolution from the window's end",
			snap:   crashedPeerAt(-2*time.Second, 18*time.Second),
			server: "b", path: jobs, outcome: mvp.Unavailable, status: 503, unavailable: mvp.Transport, peers: []string{"apiserver-a"}, inferred: true,
			stepHas: "likelier at the snapshot (the first half of the window): unavailable/transport; from 12:00:18 at the latest: unavailable/endpoint-resolution"},

		// What the server has learned (its own peer-aggregated /apis is the evidence, 1.35+).
		{name: "peer-aggregated /apis lacks it: never learned, 404 with the cause", snap: snap(server("a", "v1.36.3", all...),
			withAggregated(server("b", "v1.36.3", noBatch...), "apps/v1/deployments")),
			server: "b", path: jobs, outcome: mvp.NotFound, status: 404, peers: []string{}, stepHas: "has not learned that a serves batch/v1"},
		{name: "peer-aggregated /apis not recorded: learning assumed", snap: snap(server("a", "v1.36.3", all...), notRecorded(server("b", "v1.36.3", noBatch...))),
			server: "b", path: jobs, outcome: mvp.Proxied, peers: []string{"apiserver-a"}, inferred: true, stepHas: "assumed: b has fetched a's discovery"},
		{name: "core group: no evidence in /apis, nothing assumed", snap: snap(server("a", "v1.36.3", all...),
			withAggregated(server("b", "v1.36.3", "apps/v1/deployments"), "apps/v1/deployments")),
			server: "b", path: "/api/v1/pods", outcome: mvp.Proxied, peers: []string{"apiserver-a"}},
		{name: "1.34 keeps no document: learning assumed, said", snap: snap(server("a", "v1.34.4", all...), server("b", "v1.34.4", noBatch...)),
			server: "b", path: jobs, outcome: mvp.Proxied, peers: []string{"apiserver-a"}, stepHas: "1.34 keeps no peer-aggregated /apis"},
		{name: "simulated wrong --peer-ca-file: 404, TLS trust", snap: snap(server("a", "v1.36.3", all...),
			with(server("b", "v1.36.3", noBatch...), func(s *snapshot.Server) { s.PeerProxy.PeerCATrustsPeers = snapshot.Ptr(false) })),
			server: "b", path: jobs, outcome: mvp.NotFound, status: 404, peers: []string{}, stepHas: "does not trust a's serving certificate"},
		{name: "peer's advertise address unreachable: 404", snap: snap(
			with(server("a", "v1.36.3", all...), func(s *snapshot.Server) { s.PeerProxy.AdvertiseAddressReachable = snapshot.Ptr(false) }),
			server("b", "v1.36.3", noBatch...)),
			server: "b", path: jobs, outcome: mvp.NotFound, status: 404, peers: []string{}, stepHas: "peer-advertise address of a (127.0.0.1:6443) did not accept"},

		// StorageVersion eras.
		{name: "1.31: one unresolvable candidate is fatal", snap: snap(
			server("a", "v1.31.0", all...), with(down(server("c", "v1.31.0", all...), false), func(s *snapshot.Server) { s.Resources = resources(all...) }), server("b", "v1.31.0", noBatch...)),
			server: "b", path: jobs, outcome: mvp.Unavailable, status: 503, unavailable: mvp.EndpointResolution, peers: []string{"apiserver-a", "apiserver-c"}, inferred: true, stepHas: "any failure is fatal"},
		{name: "1.32: one resolvable candidate is enough", snap: snap(
			server("a", "v1.32.0", all...), with(down(server("c", "v1.32.0", all...), false), func(s *snapshot.Server) { s.Resources = resources(all...) }), server("b", "v1.32.0", noBatch...)),
			server: "b", path: jobs, outcome: mvp.Proxied, peers: []string{"apiserver-a", "apiserver-c"}, inferred: true},
		{name: "1.31: no StorageVersion for a CRD: local", snap: snap(
			with(server("a", "v1.31.0", all...), func(s *snapshot.Server) {
				s.Resources = append(s.Resources, res("example.com/v1/widgets", snapshot.SourceCRD))
			}),
			server("b", "v1.31.0", noBatch...)),
			server: "b", path: "/apis/example.com/v1/widgets", outcome: mvp.NotFound, status: 404, peers: []string{}, stepHas: "no StorageVersion"},
		{name: "1.30: recorded StorageVersions are used", snap: func() *snapshot.Snapshot {
			s := snap(server("a", "v1.30.0", all...), server("b", "v1.30.0", noBatch...))
			s.Cluster.StorageVersions = []snapshot.StorageVersion{{Group: "batch", Resource: "jobs", Servers: []snapshot.StorageVersionServer{{APIServerID: "apiserver-a", ServedVersions: []string{"batch/v1"}}}}}
			return s
		}(), server: "b", path: jobs, outcome: mvp.Proxied, peers: []string{"apiserver-a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := tt.method
			if method == "" {
				method = "GET"
			}
			req, err := ParseRequest(method, tt.path)
			if err != nil {
				t.Fatal(err)
			}
			req.HeaderProxied = tt.header
			d, err := NewRouter(tt.snap).Decide(tt.server, req)
			if err != nil {
				t.Fatal(err)
			}
			text := d.Reason
			for _, s := range d.Steps {
				text += "\n" + s.Text
			}
			checkPlain(t, d)
			if d.Outcome != tt.outcome {
				t.Errorf("outcome = %s, want %s\n%s", d.Outcome, tt.outcome, text)
			}
			gotStatus := 0
			if d.Status != nil {
				gotStatus = *d.Status
			}
			if gotStatus != tt.status {
				t.Errorf("status = %d, want %d", gotStatus, tt.status)
			}
			if d.Unavailable != tt.unavailable {
				t.Errorf("unavailable = %q, want %q", d.Unavailable, tt.unavailable)
			}
			if !reflect.DeepEqual(d.Peers, tt.peers) {
				t.Errorf("peers = %v, want %v", d.Peers, tt.peers)
			}
			if d.Inferred != tt.inferred {
				t.Errorf("inferred = %v, want %v\n%s", d.Inferred, tt.inferred, text)
			}
			if tt.stepHas != "" && !strings.Contains(text, tt.stepHas) {
				t.Errorf("steps do not mention %q:\n%s", tt.stepHas, text)
			}
			for i, s := range d.Steps {
				if s.N != i+1 {
					t.Errorf("step %d numbered %d", i+1, s.N)
				}
			}
		})
	}
}

// crashedPeerAt is a snapshot in which a (the only server of batch/v1) stopped answering and its
// endpoint key expires somewhere between aliveFor and goneIn after the snapshot was taken; b
// learned batch/v1/jobs from a.
func crashedPeerAt(aliveFor, goneIn time.Duration) *snapshot.Snapshot {
	return snap(with(down(server("a", "v1.36.3", all...), true), func(s *snapshot.Server) {
		s.PeerProxy.EndpointResolvable = nil
		s.PeerProxy.EndpointWindow = &snapshot.EndpointWindow{AliveUntil: takenAt.Add(aliveFor), GoneBy: takenAt.Add(goneIn)}
	}), withAggregated(server("b", "v1.36.3", noBatch...), "apps/v1/deployments", "batch/v1/jobs"))
}

// TestCrashWindowFirstNamed: inside the window both 503s are possible and both are allowed
// (AlsoPossible names the other one, which probe accepts); the first-named is the likelier one
// at the snapshot's time: transport in the window's first half, endpoint-resolution after.
func TestCrashWindowFirstNamed(t *testing.T) {
	jobs := "/apis/batch/v1/namespaces/default/jobs"
	// The window is 20 s long, about as a real one is (lastRenew+5 s to lastRenew+25.9 s); the snapshot
	// is taken `into` it.
	for _, tt := range []struct {
		into  time.Duration
		first mvp.Unavailable503
		also  string
	}{
		{1 * time.Second, mvp.Transport, "unavailable/endpoint-resolution"},
		{6 * time.Second, mvp.Transport, "unavailable/endpoint-resolution"},
		{9900 * time.Millisecond, mvp.Transport, "unavailable/endpoint-resolution"},
		{10 * time.Second, mvp.EndpointResolution, "unavailable/transport"},
		{14 * time.Second, mvp.EndpointResolution, "unavailable/transport"},
		{19 * time.Second, mvp.EndpointResolution, "unavailable/transport"},
	} {
		s := crashedPeerAt(-tt.into, 20*time.Second-tt.into)
		d, err := NewRouter(s).Decide("b", parsed(t, jobs))
		if err != nil {
			t.Fatal(err)
		}
		if d.Outcome != mvp.Unavailable || d.Unavailable != tt.first || !reflect.DeepEqual(d.AlsoPossible, []string{tt.also}) {
			t.Errorf("%s into the window: %s/%s, also possible %v; want unavailable/%s, also %s", tt.into, d.Outcome, d.Unavailable, d.AlsoPossible, tt.first, tt.also)
		}
	}
	// Outside the window the answer is certain: nothing else is allowed.
	for _, resolves := range []bool{true, false} {
		s := crashedPeerAt(0, 0)
		s.Servers[0].PeerProxy.EndpointWindow, s.Servers[0].PeerProxy.EndpointResolvable = nil, &resolves
		d, err := NewRouter(s).Decide("b", parsed(t, jobs))
		if err != nil {
			t.Fatal(err)
		}
		if len(d.AlsoPossible) != 0 {
			t.Errorf("endpoint resolves=%v (known): also possible %v", resolves, d.AlsoPossible)
		}
	}
}

func parsed(t *testing.T, path string) Request {
	t.Helper()
	req, err := ParseRequest("GET", path)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// TestDecideMixedCandidatesReportsAlternatives: where the random choice among candidates can
// end in several outcomes, the likeliest is the answer (ties go to a proxy that works) and the
// others are alternatives, whichever candidate comes first.
func TestDecideMixedCandidatesReportsAlternatives(t *testing.T) {
	crashed := func(name string) snapshot.Server {
		return with(down(server(name, "v1.36.3", all...), true), func(s *snapshot.Server) { s.Resources = resources(all...) })
	}
	healthy := func(name string) snapshot.Server { return server(name, "v1.36.3", all...) }
	b := server("b", "v1.36.3", noBatch...)
	for _, c := range []struct {
		name         string
		snap         *snapshot.Snapshot
		cell         string
		alternatives []string
	}{
		{"one of two crashed", snap(crashed("a"), healthy("c"), b), "proxy→c", []string{"unavailable/transport with probability 1/2"}},
		{"two of three crashed, the healthy one first", snap(healthy("h"), crashed("c1"), crashed("c2"), b), "503", []string{"proxied with probability 1/3"}},
		{"two of three crashed, a crashed one first", snap(crashed("c1"), healthy("h"), crashed("c2"), b), "503", []string{"proxied with probability 1/3"}},
	} {
		req, _ := ParseRequest("GET", "/apis/batch/v1/jobs")
		d, err := NewRouter(c.snap).Decide("b", req)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(d.Alternatives, c.alternatives) {
			t.Errorf("%s: alternatives = %v, want %v", c.name, d.Alternatives, c.alternatives)
		}
		if got := d.Cell(); got != c.cell {
			t.Errorf("%s: cell = %q, want %q", c.name, got, c.cell)
		}
	}
}

func TestDecideErrors(t *testing.T) {
	s := snap(server("a", "v1.36.3", all...), down(server("b", "v1.36.3", noBatch...), false))
	req, _ := ParseRequest("GET", "/api/v1/pods")
	r := NewRouter(s)
	if _, err := r.Decide("nope", req); err == nil || !strings.Contains(err.Error(), "servers: a, b") {
		t.Errorf("unknown server: %v", err)
	}
	if _, err := r.Decide("b", req); err == nil || !strings.Contains(err.Error(), "not reachable") {
		t.Errorf("unreachable server: %v", err)
	}
	if d, err := r.Decide("apiserver-a", req); err != nil || d.Server != "a" {
		t.Errorf("decide by ID: %v %v", d.Server, err)
	}
	e, err := r.Explain(req, "")
	if err != nil || len(e.Servers) != 1 || len(e.Unreachable) != 1 || e.Unreachable[0].Name != "b" {
		t.Errorf("explain: %+v %v", e, err)
	}
}

func TestTable(t *testing.T) {
	s := snap(server("a", "v1.37.1", all...), server("b", "v1.36.3", noBatch...), down(server("c", "v1.36.3", all...), false))
	r := NewRouter(s)
	tab := r.Table(false)
	if len(tab.Rows) != 1 || tab.Rows[0].Name != "batch/v1/jobs" {
		t.Fatalf("rows = %+v", tab.Rows)
	}
	var texts []string
	for _, c := range tab.Rows[0].Cells {
		texts = append(texts, c.Text)
	}
	if want := []string{"local", "proxy→a", Unreachable}; !reflect.DeepEqual(texts, want) {
		t.Errorf("cells = %v, want %v", texts, want)
	}
	if !tab.Snapshot.Partial {
		t.Error("a snapshot with an unreachable server is partial")
	}
	if n := len(r.Table(true).Rows); n != 3 {
		t.Errorf("--all rows = %d, want 3", n)
	}
}
