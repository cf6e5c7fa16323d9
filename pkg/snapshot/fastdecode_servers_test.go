//go:build !snapdecode

package snapshot

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// serversAt returns a decoder at the first server of data's "servers" array.
func serversAt(t *testing.T, data []byte) *fastDecoder {
	t.Helper()
	i := bytes.Index(data, []byte(`"servers": [`))
	if i < 0 {
		i = bytes.Index(data, []byte(`"servers":[`))
	}
	if i < 0 {
		t.Fatal("no servers array")
	}
	d := &fastDecoder{data: data, pos: bytes.IndexByte(data[i:], '[') + i + 1, strs: new(internCache)}
	d.ws()
	return d
}

// TestServersAsIndented: the servers of a snapshot as mvpctl writes it are decoded side by side
// without a pass to find them, to what the reference decodes; any other layout, or a boundary
// that is not one, is declined, and the whole decode still equals the reference's.
func TestServersAsIndented(t *testing.T) {
	s := benchSnapshot(6000)
	indented, err := s.Marshal(true)
	if err != nil {
		t.Fatal(err)
	}
	var ref Snapshot
	if err, _ := decodeJSONReference(indented, &ref); err != nil {
		t.Fatal(err)
	}
	var got []Server
	if d := serversAt(t, indented); !d.serversAsIndented(&got) || !reflect.DeepEqual(got, ref.Servers) {
		t.Fatal("an indented snapshot's servers are not decoded side by side to the reference's")
	}
	if !sameAsReference(t, "indented", indented) {
		t.Fatal("declined")
	}

	var compact bytes.Buffer
	if err := json.Compact(&compact, indented); err != nil {
		t.Fatal(err)
	}
	// The same JSON with two of the first server's resources re-indented so that the space
	// between them looks like a boundary between servers.
	fake := bytes.Replace(indented, []byte("\n        },\n        {\n"), indentedServerBoundary, 1)
	if bytes.Equal(fake, indented) {
		t.Fatal("no resources to re-indent")
	}
	// The same layout with the last server cut off after its boundary.
	cut := indented[:bytes.LastIndex(indented, indentedServerBoundary)+len(indentedServerBoundary)]
	for name, data := range map[string][]byte{"compact": compact.Bytes(), "fake boundary": fake, "truncated": cut} {
		d := serversAt(t, data)
		before := d.pos
		if d.serversAsIndented(&got) {
			t.Errorf("%s: decoded side by side", name)
		}
		if d.pos != before {
			t.Errorf("%s: the decoder moved", name)
		}
		sameAsReference(t, name, data)
	}
}
