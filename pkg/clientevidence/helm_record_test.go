package clientevidence

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

// recordSeeds are release records as Helm writes them (its field order, a chart, values,
// hooks) and in other shapes JSON allows.
var recordSeeds = []string{
	`{"name":"web","info":{"first_deployed":"2026-01-01T00:00:00Z","status":"deployed","notes":"a \"note\"\n"},"chart":{"metadata":{"name":"web","version":"1.2.3","keywords":["a","b"],"deprecated":false},"templates":[{"name":"templates/cm.yaml","data":"YXBpVmVyc2lvbjogdjE="}],"values":{"n":1.5e3,"x":null,"list":[[],{},[1,-2,true]]}},"config":{},"manifest":"---\n# Source: web/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"caf\u00e9 \ud83d\ude00 é\\\/\t\"\n","hooks":[],"version":7,"namespace":"apps","labels":null}`,
	` { "manifest" : "kind: A\r\n" , "version" : 2 , "name" : "x" , "namespace" : "ns" , "info" : null } `,
	`{"name":"n","version":1,"manifest":null,"namespace":"ns"}`,
	`{}`,
	`{"manifest":"\ud83d x \udc00 \u0041 \ud800\ud800\udc00 \udc00\ud83d\ude00 \ud800\u0041"}`,
}

// TestScanRecord: a record is read as encoding/json reads it (the release's fields and its
// manifest), in any order and beside any other values; a manifest past the room is measured,
// not kept; what is not JSON is an error.
func TestScanRecord(t *testing.T) {
	for _, rec := range recordSeeds {
		checkScanRecord(t, []byte(rec))
		got, manifest, size, err := scanRecord(strings.NewReader(rec), nil, 3)
		var want struct{ Manifest string }
		json.Unmarshal([]byte(rec), &want)
		if kept := size <= 3; err != nil || size != int64(len(want.Manifest)) || kept != (string(manifest) == want.Manifest) || !kept && manifest != nil {
			t.Errorf("room 3: %+v, %q, %d, %v; want the size %d", got, manifest, size, err, len(want.Manifest))
		}
	}
	for _, bad := range []string{``, `{`, `[]`, `{"name":"a"`, `{"name":"a"}x`, `{"name":1}`, `{"version":"7"}`, `{"manifest":"a` + "\n" + `"}`,
		`{"manifest":"\x"}`, `{"manifest":"\u12"}`, `{"a":[1,}`, `{"a":tru e}`, `{"a" 1}`, `{"a":1,}`} {
		if rec, _, _, err := scanRecord(strings.NewReader(bad), nil, 100); err == nil {
			t.Errorf("%q: read as %+v, want an error", bad, rec)
		}
	}
}

// checkScanRecord compares scanRecord with encoding/json on rec (JSON that encoding/json
// reads into a helmRecord and its manifest).
func checkScanRecord(t *testing.T, rec []byte) {
	t.Helper()
	var want struct {
		helmRecord
		Manifest *string `json:"manifest"`
	}
	wantErr := json.Unmarshal(rec, &want)
	got, manifest, size, err := scanRecord(bytes.NewReader(rec), nil, MaxHelmManifest)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%q: error %v, encoding/json %v", rec, err, wantErr)
	}
	if err != nil {
		return
	}
	wantManifest := ""
	if want.Manifest != nil {
		wantManifest = *want.Manifest
	}
	if got != want.helmRecord || string(manifest) != wantManifest || size != int64(len(wantManifest)) {
		t.Errorf("%q:\n got %+v %q (%d)\nwant %+v %q", rec, got, manifest, size, want.helmRecord, wantManifest)
	}
}

// FuzzScanRecord: scanRecord agrees with encoding/json on what it accepts.
func FuzzScanRecord(f *testing.F) {
	for _, s := range recordSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, rec []byte) {
		var v struct {
			helmRecord
			Manifest *string `json:"manifest"`
		}
		if json.Unmarshal(rec, &v) != nil || !json.Valid(rec) {
			return // scanRecord's errors need not be encoding/json's
		}
		checkScanRecord(t, rec)
	})
}

// TestDecodeHelmReleaseBound: a record that decompresses to more than MaxHelmManifest is
// refused with the bound, whether or not its manifest would fit.
func TestDecodeHelmReleaseBound(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`{"name":"big","chart":"`))
	zw.Write(bytes.Repeat([]byte("x"), MaxHelmManifest))
	zw.Write([]byte(`","manifest":"kind: A\n"}`))
	zw.Close()
	data := []byte(base64.StdEncoding.EncodeToString(gz.Bytes()))
	if _, _, _, err := decodeHelmRelease(data, nil, 1<<20); err == nil || err.Error() != "release record larger than 32 MiB" {
		t.Errorf("error %v, want the bound", err)
	}
}
