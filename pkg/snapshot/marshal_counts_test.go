package snapshot

import (
	"bytes"
	"fmt"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestMarshalCountsAsYAMLDoes: the request counts written row by row give the bytes
// sigs.k8s.io/yaml writes for the whole snapshot, whatever the values hold (words YAML reads as
// booleans or numbers, quotes, colons, line breaks, an empty group), and a server whose counts
// could not be read keeps its error.
func TestMarshalCountsAsYAMLDoes(t *testing.T) {
	s := countsSnapshot(t, 3)
	odd := []RequestCount{
		{Group: "", Version: "v1", Resource: "pods", Subresource: "log", Verb: "GET", Count: 7},
		{Group: "yes", Version: "1.0", Resource: "true", Verb: "null", Count: 1},
		{Group: "a: b", Version: "v1", Resource: "'q'\"", Subresource: "#x", Verb: "- LIST", Count: 2},
		{Group: "x\ny", Version: "v1", Resource: "r s", Verb: "LIST", Count: 3},
		{Group: "Y", Version: "0x10", Resource: "1e3", Verb: "~", Count: 4},
	}
	s.Servers[0].Requests.Counts = append(s.Servers[0].Requests.Counts, odd[:3]...)
	s.Servers[1].Requests = &RequestCounts{ReadAt: s.Servers[0].Requests.ReadAt, Error: "GET /metrics: HTTP 403"}
	for name, snap := range map[string]*Snapshot{"odd values": s, "a block scalar": func() *Snapshot {
		c := countsSnapshot(t, 2)
		c.Servers[0].Requests.Counts = append(c.Servers[0].Requests.Counts, odd[3:]...)
		return c
	}()} {
		got, err := snap.Marshal(false)
		if err != nil {
			t.Fatal(err)
		}
		want, err := yaml.Marshal(snap.compact())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the YAML differs from sigs.k8s.io/yaml's:\n%s", name, firstDiff(got, want))
		}
		if _, err := Decode(got); err != nil {
			t.Errorf("%s: does not load: %v", name, err)
		}
	}
}

func firstDiff(a, b []byte) string {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range min(len(la), len(lb)) {
		if !bytes.Equal(la[i], lb[i]) {
			return fmt.Sprintf("line %d: got %q, want %q", i+1, la[i], lb[i])
		}
	}
	return "lengths differ"
}
