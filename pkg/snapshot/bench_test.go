package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// decodeViaYAML is the loading path before encoding/json was used for JSON input: every
// document through sigs.k8s.io/yaml (YAML parse, conversion to JSON, JSON decode). Kept as the
// benchmarks' baseline.
func decodeViaYAML(data []byte) (*Snapshot, error) {
	var s Snapshot
	if err := yaml.UnmarshalStrict(data, &s); err != nil {
		return nil, decodeError(err)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// benchSnapshot builds a snapshot of three servers that together list gvrs
// group/version/resources: each serves a third of them, in Resources and in its recorded /apis
// document (10 resources per group/version, 2 versions per group), as a live snapshot does.
func benchSnapshot(gvrs int) *Snapshot {
	s := New()
	const servers = 3
	for i := range servers {
		srv := Server{Name: fmt.Sprintf("kas-%c", 'a'+i), ID: fmt.Sprintf("apiserver-kas-%c", 'a'+i),
			Version: "v1.36.3", Reachable: true, PeerProxy: PeerProxy{GateEnabled: Ptr(true), FilterInstalled: Ptr(true)},
			DiscoveryFormat: DiscoveryNoPeer, APIs: &DiscoveryDocument{ETag: `"ABCDEF"`}}
		n := gvrs / servers
		for j := 0; j < n; j++ {
			group := fmt.Sprintf("g%d.s%d.example.com", j/20, i)
			version := fmt.Sprintf("v%d", 1+(j/10)%2)
			res := fmt.Sprintf("widgets%d", j%10)
			kind := fmt.Sprintf("Widget%d", j%10)
			srv.Resources = append(srv.Resources, Resource{Group: group, Version: version, Resource: res, Kind: kind,
				Namespaced: true, Verbs: []string{"create", "delete", "get", "list", "patch", "update", "watch"},
				Subresources: []string{"status"}, Source: SourceCRD})
			items := srv.APIs.Items
			if len(items) == 0 || items[len(items)-1].Name != group {
				g := apidiscoveryv2.APIGroupDiscovery{}
				g.Name = group
				items = append(items, g)
			}
			g := &items[len(items)-1]
			if len(g.Versions) == 0 || g.Versions[len(g.Versions)-1].Version != version {
				g.Versions = append(g.Versions, apidiscoveryv2.APIVersionDiscovery{Version: version, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent})
			}
			v := &g.Versions[len(g.Versions)-1]
			v.Resources = append(v.Resources, apidiscoveryv2.APIResourceDiscovery{Resource: res,
				ResponseKind: &metav1.GroupVersionKind{Group: group, Version: version, Kind: kind},
				Scope:        apidiscoveryv2.ScopeNamespace, SingularResource: res[:len(res)-2],
				Verbs: []string{"create", "delete", "get", "list", "patch", "update", "watch"},
				Subresources: []apidiscoveryv2.APISubresourceDiscovery{{Subresource: "status",
					ResponseKind: &metav1.GroupVersionKind{Group: group, Version: version, Kind: kind}, Verbs: []string{"get", "patch", "update"}}}})
			srv.APIs.Items = items
		}
		s.Servers = append(s.Servers, srv)
	}
	return s
}

func BenchmarkLoadJSON(b *testing.B) { benchmarkLoad(b, true) }
func BenchmarkLoadYAML(b *testing.B) { benchmarkLoad(b, false) }

// benchmarkLoad loads a snapshot file of each size with LoadFile ("new") and with the old path
// (os.ReadFile and decodeViaYAML, "old"), so the ratio is in one run:
//
//	go test ./pkg/snapshot/ -run '^$' -bench 'BenchmarkLoad' -benchmem
func benchmarkLoad(b *testing.B, asJSON bool) {
	for _, gvrs := range []int{1_000, 20_000, 100_000} {
		data, err := benchSnapshot(gvrs).Marshal(asJSON)
		if err != nil {
			b.Fatal(err)
		}
		path := filepath.Join(b.TempDir(), "snapshot")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
		if _, err := LoadFile(path); err != nil {
			b.Fatal(err)
		}
		for _, impl := range []struct {
			name string
			load func() error
		}{
			{"new", func() error { _, err := LoadFile(path); return err }},
			{"old", func() error {
				data, err := os.ReadFile(path)
				if err == nil {
					_, err = decodeViaYAML(data)
				}
				return err
			}},
		} {
			b.Run(fmt.Sprintf("gvrs=%d/%s", gvrs, impl.name), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					if err := impl.load(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkDeriveExample derives every list of the README's example snapshot from its
// documents (what Decode does after decoding); the baseline walks the same documents counting
// their resources, the least any derivation does.
func BenchmarkDeriveExample(b *testing.B) {
	s, err := LoadFile("../../examples/skew.yaml")
	if err != nil {
		b.Fatal(err)
	}
	src := s.Cluster.Sources()
	b.Run("baseline-count", func(b *testing.B) {
		for b.Loop() {
			n := 0
			for i := range s.Servers {
				for _, d := range []*DiscoveryDocument{s.Servers[i].CoreAPI, s.Servers[i].APIs, s.Servers[i].DefaultAPIs} {
					if d != nil {
						for _, g := range d.Items {
							for _, v := range g.Versions {
								n += len(v.Resources)
							}
						}
					}
				}
			}
			if n == 0 {
				b.Fatal("no resources")
			}
		}
	})
	b.Run("derive", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i := range s.Servers {
				srv := &s.Servers[i]
				DeriveResources(srv.CoreAPI, srv.APIs, src)
				DerivePeerAggregated(srv.DefaultAPIs, src)
			}
		}
	})
}
