package discover

import (
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func TestParseReadyz(t *testing.T) {
	body := `[+]ping ok
[+]etcd ok
[+]poststarthook/peer-endpoint-reconciler-controller ok
[-]poststarthook/mixed-version-proxy-handler failed: reason withheld
readyz check failed
`
	r := parseReadyz([]byte(body))
	if len(r.hooks) != 4 || !r.has(hookPeerEndpointRec) || !r.has(hookProxyHandler) || r.hooks[hookProxyHandler] || !r.hooks["etcd"] {
		t.Errorf("%+v", r.hooks)
	}
	if r := parseReadyz([]byte("ok")); len(r.hooks) != 0 {
		t.Errorf("plain /readyz parsed as checks: %+v", r.hooks)
	}
}

func ptrString(b *bool) string {
	if b == nil {
		return "nil"
	}
	if *b {
		return "true"
	}
	return "false"
}

// TestPeerProxyEvidence covers each way the proxy fields are decided (docs/behaviour.md §1, §2 step 0,
// §4.3, §7).
func TestPeerProxyEvidence(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	ready := func(hooks ...string) readyz {
		r := readyz{read: true, ready: true, hooks: map[string]bool{"ping": true}}
		for _, h := range hooks {
			r.hooks[h] = true
		}
		return r
	}
	reachable := func(minor int, rz readyz) *result {
		return &result{t: &target{}, client: &serverClient{}, minor: minor, readyz: rz, doc: &discoveryDoc{format: "v2"}}
	}
	lease := func(addr string, age time.Duration) *identityLease {
		renew := now.Add(-age)
		return &identityLease{name: "apiserver-x", address: addr, renew: &renew}
	}
	jobs := snapshot.Resource{Group: "batch", Version: "v1", Resource: "jobs", Verbs: []string{"get"}}

	cases := []struct {
		name                              string
		r                                 *result
		lease                             *identityLease
		gate, filter, peerAgg, resolvable string
		evidence                          string
	}{
		{"1.36 with the proxy", reachable(36, ready(hookPeerEndpointRec, hookProxyHandler)), lease("10.0.0.1:6443", 2*time.Second),
			"true", "true", "true", "true", "poststarthook/mixed-version-proxy-handler"},
		{"1.36 gate on, no --peer-ca-file", reachable(36, ready(hookPeerEndpointRec)), lease("10.0.0.1:6443", 2*time.Second),
			"true", "false", "false", "true", "no proxy filter"},
		{"1.34 gate off", reachable(34, ready()), lease("", 2*time.Second),
			"false", "false", "false", "false", "gate UnknownVersionInteroperabilityProxy off"},
		{"1.30 SV era", reachable(30, ready(hookPeerEndpointRec, hookProxyFilterSV)), nil,
			"true", "true", "false", "true", "poststarthook/unknown-version-proxy-filter"},
		{"readyz unreadable, lease annotated", reachable(36, readyz{err: "GET /readyz?verbose: 403 Forbidden"}), lease("10.0.0.1:6443", 2*time.Second),
			"true", "nil", "nil", "true", "readyz not read"},
		{"not ready yet", reachable(36, readyz{read: true, ready: false, hooks: map[string]bool{hookPeerEndpointRec: true, hookProxyHandler: false}}), nil,
			"true", "true", "true", "nil", "written only once the server is ready"},
		{"documents differ though readyz unread", func() *result {
			r := reachable(36, readyz{err: "x"})
			r.peerAgg, r.peerAggFetched = []snapshot.Resource{jobs}, true
			return r
		}(), nil, "nil", "nil", "true", "true", "differs from profile=nopeer"},
		// The endpoint key lives at least 5 s after the lease's last renewal and is gone 25.9 s
		// after it (mvp.EndpointWindowAfter); in between it is unknown.
		{"crashed, lease fresh", &result{t: &target{}, minor: -1}, lease("10.0.0.1:6443", 2*time.Second),
			"true", "nil", "nil", "true", "identity lease renewed 2s before the snapshot: the endpoint key still lives"},
		{"crashed, in the window", &result{t: &target{}, minor: -1}, lease("10.0.0.1:6443", 12*time.Second),
			"true", "nil", "nil", "nil", "the endpoint key may still live"},
		{"crashed, lease stale", &result{t: &target{}, minor: -1}, lease("10.0.0.1:6443", 30*time.Second),
			"true", "nil", "nil", "false", "the endpoint key has expired"},
		{"no lease, unreachable", &result{t: &target{}, minor: -1}, nil,
			"nil", "nil", "nil", "nil", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pp := peerProxyEvidence(tc.r, tc.lease, now)
			got := []string{ptrString(pp.GateEnabled), ptrString(pp.FilterInstalled), ptrString(pp.PeerAggregatedDiscovery), ptrString(pp.EndpointResolvable)}
			want := []string{tc.gate, tc.filter, tc.peerAgg, tc.resolvable}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("gate,filter,peerAggregated,resolvable = %v, want %v\nevidence %q", got, want, pp.Evidence)
			}
			if ev := strings.Join(pp.Evidence, "\n"); !strings.Contains(ev, tc.evidence) {
				t.Errorf("evidence %q lacks %q", pp.Evidence, tc.evidence)
			}
			for i, line := range pp.Evidence {
				if len(pp.EvidenceKinds) != len(pp.Evidence) || pp.KindOf(i).Basis != snapshot.EvidenceObserved {
					t.Errorf("line %q: kinds %+v, want an observation for every line", line, pp.EvidenceKinds)
				}
				if tc.evidence != "" && strings.Contains(line, tc.evidence) {
					if got, want := pp.KindOf(i), snapshot.Observed(evidenceTopics[tc.name]); got != want {
						t.Errorf("line %q: %+v, want %+v", line, got, want)
					}
					break
				}
			}
		})
	}
}

// evidenceTopics is what TestPeerProxyEvidence's line of each case speaks of.
var evidenceTopics = map[string]snapshot.EvidenceTopics{
	"1.36 with the proxy":                   snapshot.TopicFilter,
	"1.36 gate on, no --peer-ca-file":       snapshot.TopicFilter,
	"1.34 gate off":                         snapshot.TopicGate,
	"1.30 SV era":                           snapshot.TopicFilter,
	"readyz unreadable, lease annotated":    snapshot.TopicFilter,
	"documents differ though readyz unread": 0, // peer-aggregated discovery: neither
}

func TestAddresses(t *testing.T) {
	for _, tc := range []struct{ in, hostPort string }{
		{"https://10.0.0.1:6443", "10.0.0.1:6443"},
		{"https://api.example.com", "api.example.com:443"},
		{"https://[::1]:6443/prefix", "[::1]:6443"},
		{"http://10.0.0.1", "10.0.0.1:80"},
	} {
		if got := HostPort(tc.in); got != tc.hostPort {
			t.Errorf("HostPort(%q) = %q, want %q", tc.in, got, tc.hostPort)
		}
	}
	if apiclient.NormAddr("[0:0:0:0:0:0:0:1]:6443") != "[::1]:6443" || apiclient.NormAddr("10.0.0.1") != "" {
		t.Error("normAddr")
	}
	for in, want := range map[string]string{
		"10.0.0.1:6443":                  "https://10.0.0.1:6443",
		"https://api.example.com/k8s/":   "https://api.example.com/k8s",
		"https://api.example.com/?x=1#y": "https://api.example.com",
	} {
		if got, err := apiclient.NormalizeBase(in); err != nil || got != want {
			t.Errorf("apiclient.NormalizeBase(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// TestDroppedByPeersEvidence: a server that stopped answering is dropped by its peers once
// another identity lease was created after it died (a server started, or started again after a
// graceful stop): that event made every peer rebuild its peer-discovery cache.
func TestDroppedByPeersEvidence(t *testing.T) {
	renew := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { t := renew.Add(d); return &t }
	for _, tc := range []struct {
		name      string
		reachable bool
		created   *time.Time // the other server's lease
		want      bool
	}{
		{"another lease created after the death", false, at(30 * time.Second), true},
		{"created while it may still have run", false, at(5 * time.Second), false},
		{"created before", false, at(-time.Hour), false},
		{"no creation time recorded", false, nil, false},
		{"the server answers", true, at(30 * time.Second), false},
	} {
		servers := []snapshot.Server{
			{Name: "a", Reachable: tc.reachable, IdentityLease: &snapshot.Lease{Name: "apiserver-a", RenewTime: &renew, Created: at(-time.Hour)}},
			{Name: "c", Reachable: true, IdentityLease: &snapshot.Lease{Name: "apiserver-c", RenewTime: at(40 * time.Second), Created: tc.created}},
		}
		droppedByPeersEvidence(servers)
		if got := servers[0].PeerProxy.DroppedByPeers; got != tc.want || servers[1].PeerProxy.DroppedByPeers {
			t.Errorf("%s: a dropped %v, want %v (c dropped %v)", tc.name, got, tc.want, servers[1].PeerProxy.DroppedByPeers)
		}
		if tc.want && !strings.Contains(strings.Join(servers[0].PeerProxy.Evidence, "\n"), "c's identity lease was created at 2026-11-25T12:00:30Z") {
			t.Errorf("%s: evidence %q", tc.name, servers[0].PeerProxy.Evidence)
		}
	}
}
