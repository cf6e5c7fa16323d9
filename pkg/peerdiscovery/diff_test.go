package peerdiscovery

import (
	"slices"
	"strings"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func TestExpectSteady(t *testing.T) {
	snap := load(t, "steady")
	for _, e := range Expect(snap) {
		s := snap.Find(e.Server)
		if e.Status != StatusAggregated || len(e.Peers) != 2 || len(e.Skipped) != 0 || len(e.Uncertain) != 0 {
			t.Errorf("%s: %s, peers %v, skipped %v, uncertain %v", e.Server, e.Status, e.Peers, e.Skipped, e.Uncertain)
		}
		if !slices.IsSortedFunc(e.Peers, func(a, b Peer) int { return strings.Compare(a.ID, b.ID) }) {
			t.Errorf("%s: peers not in merge (ID) order: %v", e.Server, e.Peers)
		}
		if e.ETag != s.DefaultAPIs.ETag {
			t.Errorf("%s: expected ETag %s, served %s", e.Server, e.ETag, s.DefaultAPIs.ETag)
		}
		if got := e.Sources("batch/v1"); !slices.Equal(got, []string{"kas-a", "kas-c"}) {
			t.Errorf("%s: batch/v1 from %v, want kas-a, kas-c", e.Server, got)
		}
	}
	rep := Diff(snap)
	if rep.Summary.Result != ResultClean || rep.Partial || rep.Summary.Checked != 3 {
		t.Errorf("summary %+v partial %v", rep.Summary, rep.Partial)
	}
	for _, d := range rep.Servers {
		if len(d.Entries) != 0 || d.ETagMatch == nil || !*d.ETagMatch {
			t.Errorf("%s: entries %v, ETag match %v", d.Name, d.Entries, d.ETagMatch)
		}
	}
}

// TestDiffStale is docs/behaviour.md §11.5 on real servers: kas-a and kas-c were stopped gracefully; kas-b,
// left without peers, kept serving its last merged document.
func TestDiffStale(t *testing.T) {
	snap := load(t, "stale")
	e, err := ExpectFor(snap, "kas-b")
	if err != nil {
		t.Fatal(err)
	}
	if e.Status != StatusAggregated || len(e.Peers) != 0 || e.ETag != snap.Servers[0].APIs.ETag {
		t.Errorf("kas-b alone: %s, peers %v, ETag %s, want its own document's %s", e.Status, e.Peers, e.ETag, snap.Servers[0].APIs.ETag)
	}
	rep := Diff(snap)
	if rep.Summary.Result != ResultBlocking || rep.Summary.Stale != 6 || rep.Summary.Missing != 0 || rep.Summary.Metadata != 0 {
		t.Errorf("summary %+v", rep.Summary)
	}
	d := rep.Servers[0]
	if d.ETagMatch == nil || *d.ETagMatch {
		t.Errorf("ETag match %v, want false", d.ETagMatch)
	}
	var got []string
	for _, e := range d.Entries {
		got = append(got, string(e.Class)+" "+string(e.Change)+" "+e.Name())
		if e.Class == ClassStale && len(e.ServedBy) != 0 {
			t.Errorf("stale %s served by %v", e.Name(), e.ServedBy)
		}
	}
	want := []string{
		"stale extra batch", // the whole group: kas-b has batch/v1 off
		"stale extra certificates.k8s.io/v1/clustertrustbundles",
		"stale extra certificates.k8s.io/v1/podcertificaterequests",
		"stale extra storage.k8s.io/v1/csinodes/status", // 1.37 adds the subresource; kas-b's 1.36 lacks it
		"stale extra resource.k8s.io/v1/devicetaintrules",
		"stale extra storagemigration.k8s.io", // 1.37 only
	}
	if !slices.Equal(got, want) {
		t.Errorf("entries\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// small builds a snapshot of servers with small documents cut from the real ones.
type small struct {
	t    *testing.T
	snap *snapshot.Snapshot
}

func newSmall(t *testing.T) *small {
	snap := snapshot.New()
	snap.Servers = make([]snapshot.Server, 0, 8) // server returns pointers into it
	return &small{t: t, snap: snap}
}

func (s *small) server(name, id, version string, own []Group) *snapshot.Server {
	srv := snapshot.Server{Name: name, ID: id, Version: version, Reachable: true, DiscoveryFormat: snapshot.DiscoveryNoPeer,
		IdentityLease: &snapshot.Lease{Name: id, HolderIdentity: id + "_x"},
		PeerProxy:     snapshot.PeerProxy{GateEnabled: snapshot.Ptr(true), FilterInstalled: snapshot.Ptr(true), PeerAggregatedDiscovery: snapshot.Ptr(true)},
		APIs:          &snapshot.DiscoveryDocument{ETag: ETag(own), Items: own}}
	s.snap.Servers = append(s.snap.Servers, srv)
	return &s.snap.Servers[len(s.snap.Servers)-1]
}

// serve records a server's default /apis.
func serve(srv *snapshot.Server, gs []Group) {
	srv.DefaultAPIs = &snapshot.DiscoveryDocument{ETag: ETag(gs), Items: gs}
}

func entries(d ServerDiff) []string {
	var out []string
	for _, e := range d.Entries {
		out = append(out, string(e.Class)+" "+string(e.Change)+" "+e.Name())
	}
	return out
}

func TestDiffClasses(t *testing.T) {
	steady := load(t, "steady")
	a, b, c := own(t, steady, "kas-a"), own(t, steady, "kas-b"), own(t, steady, "kas-c")

	t.Run("missing: a learned peer's group not advertised", func(t *testing.T) {
		s := newSmall(t)
		sb := s.server("kas-b", idB, "v1.36.3", pick(t, b, "apps", "autoscaling"))
		s.server("kas-c", idC, "v1.37.1", pick(t, c, "apps", "batch"))
		serve(sb, pick(t, b, "apps", "autoscaling")) // kas-b has not merged kas-c's batch
		d := Diff(s.snap, "kas-b")
		if got := entries(d.Servers[0]); !slices.Equal(got, []string{"missing missing batch"}) {
			t.Errorf("entries %v", got)
		}
		if e := d.Servers[0].Entries[0]; !slices.Equal(e.ServedBy, []string{"kas-c"}) || !strings.Contains(e.Detail, "served by kas-c") {
			t.Errorf("entry %+v", e)
		}
		if d.Summary.Result != ResultBlocking || d.Summary.Missing != 1 {
			t.Errorf("summary %+v", d.Summary)
		}
	})

	t.Run("unexpected: advertised and served, but only by a gate-off server", func(t *testing.T) {
		s := newSmall(t)
		sb := s.server("kas-b", idB, "v1.36.3", pick(t, b, "apps"))
		off := s.server("kas-off", idC, "v1.37.1", pick(t, c, "apps", "batch"))
		off.PeerProxy = snapshot.PeerProxy{GateEnabled: snapshot.Ptr(false), FilterInstalled: snapshot.Ptr(false), PeerAggregatedDiscovery: snapshot.Ptr(false)}
		serve(sb, append(pick(t, b, "apps"), pick(t, c, "batch")...))
		d := Diff(s.snap)
		if got := entries(d.Servers[0]); !slices.Equal(got, []string{"unexpected extra batch"}) {
			t.Errorf("entries %v", got)
		}
		if d.Servers[1].Status != StatusNotAggregated || len(d.Servers[1].Entries) != 0 {
			t.Errorf("gate-off server: %s %v, want not-aggregated without entries", d.Servers[1].Status, d.Servers[1].Entries)
		}
		if d.Summary.Result != ResultDifferences || d.Summary.Checked != 1 {
			t.Errorf("summary %+v", d.Summary)
		}
		sk := Expect(s.snap)[0].Skipped
		if len(sk) != 1 || !strings.Contains(sk[0].Reason, "feature gate off") {
			t.Errorf("skipped %v", sk)
		}
	})

	t.Run("stale at the version and resource level, collapsing when uniform", func(t *testing.T) {
		s := newSmall(t)
		sc := s.server("kas-c", idC, "v1.37.1", pick(t, c, "resource.k8s.io"))
		// Served as if kas-a (gone, lease deleted) were still merged.
		serve(sc, Merge(idC, pick(t, c, "resource.k8s.io"), map[string][]Group{idA: pick(t, a, "resource.k8s.io")}))
		d := Diff(s.snap)
		want := []string{
			"stale extra resource.k8s.io/v1beta2",
			"stale extra resource.k8s.io/v1beta1",
			"stale extra resource.k8s.io/v1alpha3",
		}
		if got := entries(d.Servers[0]); !slices.Equal(got, want) {
			t.Errorf("entries %v, want %v", got, want)
		}
		// A served resource in a stale version splits the version into resources.
		other := s.server("kas-x", "apiserver-zzzz", "v1.36.3", nil)
		other.APIs.Items = []Group{{Versions: []apidiscoveryv2.APIVersionDiscovery{*find(a, "resource.k8s.io", "v1alpha3")}}}
		other.APIs.Items[0].Name = "resource.k8s.io"
		other.APIs.Items[0].Versions[0].Resources = other.APIs.Items[0].Versions[0].Resources[:1] // devicetaintrules
		other.PeerProxy.GateEnabled = snapshot.Ptr(false)
		other.PeerProxy.PeerAggregatedDiscovery = snapshot.Ptr(false)
		d = Diff(s.snap, "kas-c")
		want = []string{
			"stale extra resource.k8s.io/v1beta2",
			"stale extra resource.k8s.io/v1beta1",
			"unexpected extra resource.k8s.io/v1alpha3/devicetaintrules",
			"stale extra resource.k8s.io/v1alpha3/resourcepoolstatusrequests",
		}
		if got := entries(d.Servers[0]); !slices.Equal(got, want) {
			t.Errorf("entries %v, want %v", got, want)
		}
	})

	t.Run("a subresource on one side only", func(t *testing.T) {
		s := newSmall(t)
		sb := s.server("kas-b", idB, "v1.36.3", pick(t, b, "storage.k8s.io")) // csinodes without status
		s.server("kas-c", idC, "v1.37.1", pick(t, c, "storage.k8s.io"))       // csinodes/status
		serve(sb, pick(t, b, "storage.k8s.io"))                               // kas-c's csinodes/status not merged
		d := Diff(s.snap, "kas-b")
		if got := entries(d.Servers[0]); !slices.Equal(got, []string{"missing missing storage.k8s.io/v1/csinodes/status"}) {
			t.Errorf("entries %v", got)
		}
		if e := d.Servers[0].Entries[0]; !slices.Equal(e.ServedBy, []string{"kas-c"}) {
			t.Errorf("served by %v", e.ServedBy)
		}
	})

	t.Run("ordering and metadata", func(t *testing.T) {
		s := newSmall(t)
		sb := s.server("kas-b", idB, "v1.36.3", pick(t, b, "apps", "autoscaling", "storage.k8s.io"))
		served := pick(t, b, "apps", "autoscaling", "storage.k8s.io") // in kas-b's order
		served[0], served[1] = served[1], served[0]
		served[0].Versions[0], served[0].Versions[1] = served[0].Versions[1], served[0].Versions[0]
		findResource(served, "storage.k8s.io", "v1", "csinodes").Verbs = []string{"get"}
		find(served, "apps", "v1").Freshness = apidiscoveryv2.DiscoveryFreshnessStale
		serve(sb, served)
		d := Diff(s.snap)
		want := []string{
			"ordering different (group order)",
			"ordering different autoscaling",
			"metadata different apps/v1",
			"metadata different storage.k8s.io/v1/csinodes",
		}
		if got := entries(d.Servers[0]); !slices.Equal(got, want) {
			t.Errorf("entries %v, want %v", got, want)
		}
		if e := d.Servers[0].Entries[3]; !strings.HasPrefix(e.Detail, `verbs: expected ["create",`) || !strings.Contains(e.Detail, `served ["get"]`) {
			t.Errorf("detail %q", e.Detail)
		}
		if d.Summary.Result != ResultDifferences || d.Servers[0].ETagMatch == nil || *d.Servers[0].ETagMatch {
			t.Errorf("summary %+v, ETag match %v", d.Summary, d.Servers[0].ETagMatch)
		}
	})
}

func TestLearnedPeers(t *testing.T) {
	steady := load(t, "steady")
	b, c := own(t, steady, "kas-b"), own(t, steady, "kas-c")
	cases := []struct {
		name      string
		mutate    func(p *snapshot.Server)
		learned   bool
		reason    string
		uncertain bool
	}{
		{"reachable, gate on, document recorded", func(*snapshot.Server) {}, true, "", false},
		{"stopped gracefully: no identity lease", func(p *snapshot.Server) { p.Reachable, p.IdentityLease = false, nil }, false, "no identity lease", false},
		{"crashed: lease, not readable", func(p *snapshot.Server) { p.Reachable = false }, false, "may still hold", true},
		{"lease without holder", func(p *snapshot.Server) { p.IdentityLease.HolderIdentity = "" }, false, "without holderIdentity", false},
		{"gate off", func(p *snapshot.Server) { p.PeerProxy.GateEnabled = snapshot.Ptr(false) }, false, "feature gate off", false},
		{"no identity", func(p *snapshot.Server) { p.ID = "" }, false, "no identity lease matched", false},
		{"legacy discovery", func(p *snapshot.Server) { p.DiscoveryFormat = snapshot.DiscoveryLegacy }, false, "v2 only", false},
		{"document not recorded", func(p *snapshot.Server) { p.APIs = nil }, false, "not recorded", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSmall(t)
			s.server("kas-b", idB, "v1.36.3", pick(t, b, "apps"))
			p := s.server("kas-c", idC, "v1.37.1", pick(t, c, "apps", "batch"))
			tc.mutate(p)
			e := Expect(s.snap)[0]
			if got := len(e.Peers) == 1; got != tc.learned {
				t.Fatalf("learned %v, want %v (skipped %v)", got, tc.learned, e.Skipped)
			}
			if tc.learned {
				if e.Status != StatusAggregated || find(e.Items(), "batch", "v1") == nil {
					t.Errorf("status %s, groups %v", e.Status, groupNames(e.Items()))
				}
				return
			}
			if len(e.Skipped) != 1 || !strings.Contains(e.Skipped[0].Reason, tc.reason) {
				t.Errorf("skipped %v, want a reason with %q", e.Skipped, tc.reason)
			}
			if got := len(e.Uncertain) > 0; got != tc.uncertain {
				t.Errorf("uncertain %v, want %v", e.Uncertain, tc.uncertain)
			}
		})
	}
}

func TestStatuses(t *testing.T) {
	steady := load(t, "steady")
	b := pick(t, own(t, steady, "kas-b"), "apps")
	cases := []struct {
		name   string
		mutate func(s *snapshot.Server)
		want   Status
	}{
		{"1.34: no peer aggregation", func(s *snapshot.Server) { s.Version = "v1.34.4"; s.PeerProxy = snapshot.PeerProxy{} }, StatusNotAggregated},
		{"1.36 without --peer-ca-file", func(s *snapshot.Server) { s.PeerProxy.PeerAggregatedDiscovery = snapshot.Ptr(false) }, StatusNotAggregated},
		// Nothing recorded: the gate is on by default from 1.36, but --peer-ca-file has no default,
		// so no peer proxy is built and /apis is the server's own document.
		{"1.36, nothing recorded: no --peer-ca-file by default", func(s *snapshot.Server) { s.PeerProxy = snapshot.PeerProxy{} }, StatusNotAggregated},
		{"1.36, filter recorded", func(s *snapshot.Server) {
			s.PeerProxy = snapshot.PeerProxy{GateEnabled: snapshot.Ptr(true), FilterInstalled: snapshot.Ptr(true)}
		}, StatusAggregated},
		{"1.35, nothing recorded: gate off by default", func(s *snapshot.Server) { s.Version = "v1.35.4"; s.PeerProxy = snapshot.PeerProxy{} }, StatusNotAggregated},
		{"unreachable", func(s *snapshot.Server) { s.Reachable, s.Error = false, "connection refused" }, StatusUnreachable},
		{"own document not recorded", func(s *snapshot.Server) { s.APIs = nil }, StatusNotRecorded},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSmall(t)
			srv := s.server("kas-b", idB, "v1.36.3", b)
			serve(srv, b)
			tc.mutate(srv)
			e := Expect(s.snap)[0]
			if e.Status != tc.want {
				t.Errorf("status %s (%s), want %s", e.Status, e.Reason, tc.want)
			}
			if tc.want == StatusNotAggregated && (e.ETag != ETag(b) || !strings.Contains(e.Reason, "")) {
				t.Errorf("not-aggregated: the expectation is its own document")
			}
			rep := Diff(s.snap)
			if len(rep.Servers[0].Entries) != 0 {
				t.Errorf("entries %v: only checked servers have entries", rep.Servers[0].Entries)
			}
			wantPartial := tc.want == StatusUnreachable || tc.want == StatusNotRecorded
			if rep.Partial != wantPartial {
				t.Errorf("partial %v, want %v", rep.Partial, wantPartial)
			}
		})
	}
	t.Run("default document not recorded", func(t *testing.T) {
		s := newSmall(t)
		s.server("kas-b", idB, "v1.36.3", b)
		if d := Diff(s.snap); d.Servers[0].Status != StatusNotRecorded || !d.Partial {
			t.Errorf("%s partial %v", d.Servers[0].Status, d.Partial)
		}
	})
}
