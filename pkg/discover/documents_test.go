package discover

import (
	"context"
	"strings"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"

	"sigs.k8s.io/yaml"

	"github.com/mvpctl/mvpctl/pkg/snapshot"

	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"
)

// TestDocumentsRecorded: the /apis aggregated documents are recorded as served, with their
// ETags, for `mvpctl discovery`: the own (nopeer) one for every v2 server, the default one for
// servers that aggregate.
func TestDocumentsRecorded(t *testing.T) {
	p := dt.NewPKI(t)
	// BuiltinGroups(false) has no batch group: a peer adds it.
	batch := dt.Group("batch", dt.Ver("v1", dt.Resource("jobs", "Job", true, "status")))
	cases := []struct {
		name       string
		server     func() *dt.Server
		apis       bool
		defaultDoc bool
		peerOnly   bool
	}{
		{"1.36 aggregating, a peer adds batch", func() *dt.Server {
			return &dt.Server{GitVersion: "v1.36.3", Mode: dt.ModeNoPeer, Hooks: dt.Hooks136, PeerOnly: []apidiscoveryv2.APIGroupDiscovery{batch}}
		}, true, true, true},
		{"1.36 aggregating, no peer adds anything", func() *dt.Server { return &dt.Server{GitVersion: "v1.36.3", Mode: dt.ModeNoPeer, Hooks: dt.Hooks136} }, true, true, false},
		{"1.36 without the proxy", func() *dt.Server { return &dt.Server{GitVersion: "v1.36.3", Mode: dt.ModeNoPeer} }, true, false, false},
		{"1.34: v2, no aggregation", func() *dt.Server { return &dt.Server{GitVersion: "v1.34.4", Mode: dt.ModeIgnoreProfile} }, true, false, false},
		{"1.29: v2beta1 only", func() *dt.Server { return &dt.Server{GitVersion: "v1.29.6", Mode: dt.ModeV2Beta1} }, false, false, false},
		{"legacy discovery", func() *dt.Server { return &dt.Server{GitVersion: "v1.28.3", Mode: dt.ModeLegacy} }, false, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.server()
			f.Cluster, f.Core, f.Groups = &dt.Cluster{}, dt.CoreGroup(), dt.BuiltinGroups(false)
			f.Start(t, p)
			snap, err := discoverRT(t, context.Background(), Options{Config: dt.ClientConfig(p, f.URL(), "")})
			if err != nil {
				t.Fatal(err)
			}
			s := snap.Servers[0]
			if (s.APIs != nil) != tc.apis || (s.DefaultAPIs != nil) != tc.defaultDoc {
				t.Fatalf("apis recorded %v (want %v), defaultAPIs recorded %v (want %v)", s.APIs != nil, tc.apis, s.DefaultAPIs != nil, tc.defaultDoc)
			}
			if s.APIs != nil {
				if len(s.APIs.Items) != len(f.Groups) || s.APIs.ETag == "" || s.APIs.ETag[0] != '"' {
					t.Errorf("apis: %d groups (want %d), etag %q", len(s.APIs.Items), len(f.Groups), s.APIs.ETag)
				}
				for _, g := range s.APIs.Items {
					if g.Name == "" {
						t.Error("the core group is in the recorded /apis")
					}
				}
			}
			if s.DefaultAPIs != nil {
				want := len(f.Groups)
				if tc.peerOnly {
					want++
				}
				if len(s.DefaultAPIs.Items) != want || (s.DefaultAPIs.ETag == s.APIs.ETag) != !tc.peerOnly {
					t.Errorf("defaultAPIs: %d groups (want %d), etag %q vs own %q", len(s.DefaultAPIs.Items), want, s.DefaultAPIs.ETag, s.APIs.ETag)
				}
			}
			// The documents survive the snapshot file.
			if s.APIs != nil && s.DefaultAPIs != nil && s.PeerProxy.PeerAggregatedDiscovery == nil {
				t.Error("documents recorded without the evidence that the server aggregates")
			}
			data, err := snap.Marshal(false)
			if err != nil {
				t.Fatal(err)
			}
			back, err := snapshot.Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			if b := back.Servers[0]; (b.APIs == nil) != (s.APIs == nil) || (s.APIs != nil && b.APIs.ETag != s.APIs.ETag) {
				t.Errorf("documents lost in YAML: %+v", b.APIs)
			}
			// The /api document is recorded beside /apis, and the file (mvpctl.io/v1alpha2)
			// leaves out the lists the documents give: they are derived on read.
			if (s.CoreAPI != nil) != tc.apis {
				t.Errorf("coreAPI recorded %v, want %v", s.CoreAPI != nil, tc.apis)
			}
			var file struct {
				Servers []map[string]any `json:"servers"`
			}
			if err := yaml.Unmarshal(data, &file); err != nil {
				t.Fatal(err)
			}
			_, hasResources := file.Servers[0]["resources"]
			_, hasPeerAgg := file.Servers[0]["peerAggregated"]
			if hasResources == tc.apis || (tc.defaultDoc && hasPeerAgg) {
				t.Errorf("file has resources %v (want %v), peerAggregated %v (a default document recorded: %v)", hasResources, !tc.apis, hasPeerAgg, tc.defaultDoc)
			}
		})
	}
}

// TestGarbledDocumentNotRecorded: a document the merge cannot use (a group listed twice) is
// not recorded, with a warning; the server's resources still are, and the snapshot is valid.
func TestGarbledDocumentNotRecorded(t *testing.T) {
	p := dt.NewPKI(t)
	batch := dt.Group("batch", dt.Ver("v1", dt.Resource("jobs", "Job", true, "status")))
	f := (&dt.Server{Cluster: &dt.Cluster{}, GitVersion: "v1.36.3", Mode: dt.ModeNoPeer, Hooks: dt.Hooks136, Core: dt.CoreGroup(),
		Groups: append(dt.BuiltinGroups(true), batch), PeerOnly: []apidiscoveryv2.APIGroupDiscovery{batch}}).Start(t, p)
	var rec recorder
	snap, err := discoverRT(t, context.Background(), rec.opts(Options{Config: dt.ClientConfig(p, f.URL(), "")}))
	if err != nil {
		t.Fatal(err)
	}
	s := snap.Servers[0]
	if !s.Reachable || s.APIs != nil || s.DefaultAPIs != nil || len(s.Resources) == 0 {
		t.Errorf("reachable %v, apis %v, defaultAPIs %v, %d resources", s.Reachable, s.APIs != nil, s.DefaultAPIs != nil, len(s.Resources))
	}
	for _, want := range []string{"/apis document not recorded: items[", "default /apis document not recorded: items["} {
		if !strings.Contains(rec.all(), want) {
			t.Errorf("no warning %q in %q", want, rec.all())
		}
	}
}
