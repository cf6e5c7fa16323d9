package snapshot

import (
	"strings"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
)

func TestValidateDocuments(t *testing.T) {
	group := func(name string, versions ...string) apidiscoveryv2.APIGroupDiscovery {
		g := apidiscoveryv2.APIGroupDiscovery{}
		g.Name = name
		for _, v := range versions {
			g.Versions = append(g.Versions, apidiscoveryv2.APIVersionDiscovery{Version: v})
		}
		return g
	}
	cases := []struct {
		items []apidiscoveryv2.APIGroupDiscovery
		want  string
	}{
		{[]apidiscoveryv2.APIGroupDiscovery{group("apps", "v1"), group("batch", "v1", "v1beta1")}, ""},
		{[]apidiscoveryv2.APIGroupDiscovery{}, ""},
		{[]apidiscoveryv2.APIGroupDiscovery{group("", "v1")}, "servers[0] (a).apis.items[0].metadata.name: must be set"},
		{[]apidiscoveryv2.APIGroupDiscovery{group("apps", "v1"), group("apps", "v2")}, `servers[0] (a).apis.items[1]: duplicate group "apps" (also items[0])`},
		{[]apidiscoveryv2.APIGroupDiscovery{group("apps", "v1", "")}, `servers[0] (a).apis.items[0].versions[1].version: must be set`},
		{[]apidiscoveryv2.APIGroupDiscovery{group("apps", "v1", "v1")}, `duplicate version "v1" of group "apps"`},
	}
	for _, tc := range cases {
		s := valid()
		s.Servers[0].APIs = &DiscoveryDocument{ETag: `"AB"`, Items: tc.items}
		err := s.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.items, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: error %v, want %q", tc.items, err, tc.want)
		}
	}
	s := valid()
	s.Servers[0].DefaultAPIs = &DiscoveryDocument{Items: []apidiscoveryv2.APIGroupDiscovery{group("")}}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), ".defaultAPIs.items[0]") {
		t.Errorf("defaultAPIs: %v", err)
	}
	// Round trip through YAML keeps the documents.
	s = valid()
	s.Servers[0].APIs = &DiscoveryDocument{ETag: `"AB"`, Items: []apidiscoveryv2.APIGroupDiscovery{group("apps", "v1")}}
	data, err := s.Marshal(false)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(data)
	if err != nil || back.Servers[0].APIs == nil || back.Servers[0].APIs.ETag != `"AB"` || back.Servers[0].APIs.Items[0].Name != "apps" {
		t.Errorf("round trip: %v %+v", err, back)
	}
}
