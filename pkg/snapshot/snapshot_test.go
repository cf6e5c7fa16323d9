package snapshot

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func valid() *Snapshot {
	s := New()
	s.TakenAt = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	s.Servers = []Server{
		{Name: "a", ID: "apiserver-a", Version: "v1.36.3", Reachable: true, PeerProxy: PeerProxy{GateEnabled: Ptr(true)},
			Resources: []Resource{{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true, Verbs: []string{"get"}, Subresources: []string{"status"}, Source: SourceBuiltin}}},
		{Name: "b", ID: "apiserver-b", Reachable: false, Error: "connection refused"},
	}
	return s
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Snapshot)
		want   string
	}{
		{"valid", func(*Snapshot) {}, ""},
		{"wrong apiVersion", func(s *Snapshot) { s.APIVersion = "v1" }, "apiVersion: got \"v1\""},
		{"wrong kind", func(s *Snapshot) { s.Kind = "Foo" }, "kind: got \"Foo\""},
		{"no servers", func(s *Snapshot) { s.Servers = nil }, "servers: no servers"},
		{"unnamed", func(s *Snapshot) { s.Servers[0].Name = "" }, "servers[0].name: must be set"},
		{"duplicate name", func(s *Snapshot) { s.Servers[1].Name = "a" }, "servers[1].name: duplicate server \"a\""},
		{"duplicate id", func(s *Snapshot) { s.Servers[1].ID = "apiserver-a" }, "servers[1].id: duplicate server id"},
		{"reachable without version", func(s *Snapshot) { s.Servers[0].Version = "" }, "servers[0] (a).version: must be set"},
		{"bad version", func(s *Snapshot) { s.Servers[0].Version = "latest" }, "\"latest\" is not a Kubernetes version"},
		{"resource without version", func(s *Snapshot) { s.Servers[0].Resources[0].Version = "" }, "servers[0] (a).resources[0].version: must be set"},
		{"resource without name", func(s *Snapshot) { s.Servers[0].Resources[0].Resource = "" }, "resources[0].resource: must be set"},
		{"subresource as resource", func(s *Snapshot) { s.Servers[0].Resources[0].Resource = "pods/status" }, "is a subresource"},
		{"bad source", func(s *Snapshot) { s.Servers[0].Resources[0].Source = "magic" }, "source: \"magic\""},
		{"duplicate resource", func(s *Snapshot) {
			s.Servers[0].Resources = append(s.Servers[0].Resources, s.Servers[0].Resources[0])
		}, "duplicate resource v1/pods"},
		{"peerAggregated checked too", func(s *Snapshot) { s.Servers[0].PeerAggregated = []Resource{{Resource: "jobs"}} }, "peerAggregated[0].version"},
		{"storage version without resource", func(s *Snapshot) { s.Cluster.StorageVersions = []StorageVersion{{Group: "batch"}} }, "cluster.storageVersions[0].resource"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := valid()
			tt.mutate(s)
			err := s.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// withCRDs is valid() with the cluster's CRDs recorded, one list error beside them.
func withCRDs() *Snapshot {
	s := valid()
	s.Cluster.CustomResourceDefinitions = []CustomResourceDefinition{crdWidgets()}
	s.Cluster.CustomResourceGroupVersions = []string{"example.com/v1", "example.com/v1alpha1", "example.com/v1beta1"}
	s.Cluster.ListsRead = &ListsRead{CustomResourceDefinitions: true}
	return s
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, asJSON := range []bool{false, true} {
		path := filepath.Join(dir, "s")
		if err := withCRDs().WriteFile(path, asJSON); err != nil {
			t.Fatal(err)
		}
		got, err := LoadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, withCRDs()) {
			t.Errorf("json=%v: round trip changed the snapshot:\n%+v", asJSON, got)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("WriteFile left temporary files: %v", entries)
	}
}

func TestDecodeErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":                    "file is empty",
		"  \n":                "file is empty",
		"<html>502</html>":    "starts with '<'",
		"- a\n- b\n":          "not a YAML or JSON object",
		`{"apiVersion": "mv`:  "truncated?",
		"apiVersion: [1, 2\n": "truncated?",
		"kind: Snapshot\nfoo: 1\napiVersion: mvpctl.io/v1alpha1\nservers: []\n": `unknown field "foo"`,
	} {
		_, err := Decode([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Decode(%q) = %v, want one line containing %q", in, err, want)
		}
	}
}

func TestGVR(t *testing.T) {
	for s, want := range map[string]GVR{"v1/pods": {Version: "v1", Resource: "pods"}, "batch/v1/jobs": {Group: "batch", Version: "v1", Resource: "jobs"}} {
		got, err := ParseGVR(s)
		if err != nil || got != want || got.String() != s {
			t.Errorf("ParseGVR(%q) = %v, %v", s, got, err)
		}
	}
	for _, bad := range []string{"", "pods", "a/b/c/d", "/v1/pods", "batch//jobs"} {
		if _, err := ParseGVR(bad); err == nil {
			t.Errorf("ParseGVR(%q) should fail", bad)
		}
	}
}

func TestParseVersion(t *testing.T) {
	for s, want := range map[string]Version{"v1.36.3": {1, 36, 3}, "1.37": {1, 37, 0}, "v1.35.4-gke.100": {1, 35, 4}, "v1.30.0+k3s1": {1, 30, 0}} {
		got, err := ParseVersion(s)
		if err != nil || got != want {
			t.Errorf("ParseVersion(%q) = %v, %v", s, got, err)
		}
	}
	for _, bad := range []string{"", "v1", "x.y.z", "1.2.3.4", "1.-2"} {
		if _, err := ParseVersion(bad); err == nil {
			t.Errorf("ParseVersion(%q) should fail", bad)
		}
	}
}

func FuzzDecode(f *testing.F) {
	data, _ := valid().Marshal(false)
	f.Add(data)
	f.Add([]byte(`{"apiVersion":"mvpctl.io/v1alpha1","kind":"Snapshot","servers":[{"name":"a"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Decode(b)
		if err == nil && s.Validate() != nil {
			t.Error("Decode returned an invalid snapshot")
		}
	})
}

func TestDecodeGzip(t *testing.T) {
	data, _ := valid().Marshal(false)
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	s, err := Decode(b.Bytes())
	if err != nil || !reflect.DeepEqual(s, valid()) {
		t.Fatalf("gzip snapshot: %v", err)
	}
	if _, err := Decode(b.Bytes()[:b.Len()/2]); err == nil || !strings.Contains(err.Error(), "gzip") {
		t.Errorf("truncated gzip: %v", err)
	}
}
