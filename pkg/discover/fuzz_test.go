package discover

import (
	"encoding/json"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"
)

// validates reports whether a reachable server with these resources passes
// snapshot.Validate: whatever a server sends must not make the snapshot unloadable.
func validates(t *testing.T, rs []snapshot.Resource) {
	t.Helper()
	snap := snapshot.New()
	snap.Servers = []snapshot.Server{{Name: "s", Version: "v1.36.0", Reachable: true, Resources: rs, PeerAggregated: rs}}
	if err := snap.Validate(); err != nil {
		t.Fatalf("a discovery document produced an invalid snapshot: %v", err)
	}
}

// FuzzAggregatedDocument feeds arbitrary aggregated-discovery JSON through decoding,
// flattening and sanitizing.
func FuzzAggregatedDocument(f *testing.F) {
	good, _ := json.Marshal(apidiscoveryv2.APIGroupDiscoveryList{Items: append([]apidiscoveryv2.APIGroupDiscovery{dt.CoreGroup()}, dt.BuiltinGroups(true)...)})
	f.Add(good)
	f.Add([]byte(`{"items":[{"metadata":{"name":"a"},"versions":[{"version":"v1","resources":[{"resource":""},{"resource":"x/y"},{"resource":"p"},{"resource":"p"}]}]}]}`))
	f.Add([]byte(`{"items":[{"versions":[{"version":"","freshness":"Stale"}]}]}`))
	f.Add([]byte(`{"items":null}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var list apidiscoveryv2.APIGroupDiscoveryList
		if json.Unmarshal(body, &list) != nil {
			return
		}
		rs, _ := snapshot.FlattenDiscovery(list.Items)
		rs, _ = snapshot.Sanitize(rs)
		validates(t, rs)
	})
}

// FuzzLegacyResourceList does the same for unaggregated APIResourceLists.
func FuzzLegacyResourceList(f *testing.F) {
	good, _ := json.Marshal(metav1.APIResourceList{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
		{Name: "deployments", Namespaced: true, Kind: "Deployment", Verbs: []string{"get"}}, {Name: "deployments/scale", Namespaced: true, Kind: "Scale"}}})
	f.Add(good)
	f.Add([]byte(`{"groupVersion":"/","resources":[{"name":"/"},{"name":"a//b"},{"name":"a"},{"name":"a"}]}`))
	f.Add([]byte(`{"groupVersion":"","resources":[{"name":"x"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var list metav1.APIResourceList
		if json.Unmarshal(body, &list) != nil {
			return
		}
		rs, _ := snapshot.Sanitize(flattenLegacy(list))
		validates(t, rs)
	})
}

// FuzzReadyz: any body parses without panicking.
func FuzzReadyz(f *testing.F) {
	f.Add([]byte("[+]ping ok\n[-]poststarthook/mixed-version-proxy-handler failed: reason withheld\nreadyz check failed\n"))
	f.Add([]byte("[+]\n[-] \n["))
	f.Fuzz(func(t *testing.T, body []byte) { parseReadyz(body) })
}
