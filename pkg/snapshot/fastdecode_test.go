//go:build !snapdecode

package snapshot

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// sameAsReference checks the generated decoder's one rule on data: it declines, or it decodes
// exactly what the reference decoder (goccy/go-json, duplicate-key pass) decodes. It reports
// whether the generated decoder accepted data.
func sameAsReference(t *testing.T, name string, data []byte) bool {
	t.Helper()
	var fast, ref Snapshot
	ok, _, _ := fastDecode(data, &fast)
	refErr, _ := decodeJSONReference(data, &ref)
	if ok && refErr != nil {
		t.Errorf("%s: the generated decoder accepted what the reference rejects (%v):\n%s", name, refErr, clip(data))
	}
	if ok && refErr == nil && !reflect.DeepEqual(fast, ref) {
		t.Errorf("%s: the generated decoder and the reference decode different snapshots:\n%s", name, clip(data))
	}
	return ok
}

func clip(data []byte) string {
	if len(data) > 400 {
		return string(data[:400]) + "..."
	}
	return string(data)
}

// realSnapshotsJSON returns every snapshot in the repository as JSON, indented as mvpctl
// writes it and compact, plus a generated 300-GVR one.
func realSnapshotsJSON(t testing.TB) map[string][]byte {
	out := map[string][]byte{}
	var files []string
	for _, pattern := range []string{"../../examples/*.yaml", "../../cmd/mvpctl/testdata/snapshots/*.yaml", "../../cmd/mvpctl/testdata/*.yaml", "testdata/*.yaml.gz"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if data, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		j, err := yaml.YAMLToJSON(data)
		if err != nil {
			continue // the broken inputs among the test files
		}
		out[filepath.Base(f)+" (compact)"] = j
		if s, err := Decode(data); err == nil {
			indented, err := s.Marshal(true)
			if err != nil {
				t.Fatal(err)
			}
			out[filepath.Base(f)+" (as written)"] = indented
		}
	}
	gen, err := benchSnapshot(300).Marshal(true)
	if err != nil {
		t.Fatal(err)
	}
	out["benchSnapshot(300)"] = gen
	return out
}

// TestFastDecodeRealSnapshots: every snapshot in the repository, as JSON, is decoded by the
// generated decoder (not declined), to what the reference decodes.
func TestFastDecodeRealSnapshots(t *testing.T) {
	snaps := realSnapshotsJSON(t)
	if len(snaps) < 10 {
		t.Fatalf("only %d snapshots", len(snaps))
	}
	for name, data := range snaps {
		var ref Snapshot
		if err, _ := decodeJSONReference(data, &ref); err != nil {
			continue // the reference rejects it too (a test file with a wrong field)
		}
		if !sameAsReference(t, name, data) {
			t.Errorf("%s: declined by the generated decoder", name)
		}
	}
}

// TestFastDecodeCases: inputs the generated decoder must decline (the reference then words the
// error or decides) or may accept; whatever it accepts equals the reference's result.
func TestFastDecodeCases(t *testing.T) {
	const head = `{"apiVersion":"mvpctl.io/v1alpha2","kind":"Snapshot",`
	server := func(fields string) string {
		return head + `"servers":[{"name":"a","version":"v1.36.0","peerProxy":{},"reachable":true` + fields + `}]}`
	}
	cases := []struct {
		name    string
		data    string
		accepts bool
	}{
		{"minimal", server(""), true},
		{"white space everywhere", " \n\t{ \"apiVersion\" : \"mvpctl.io/v1alpha2\" ,\r\n \"kind\":\"Snapshot\" , \"servers\" : [ ] } \n", true},
		{"empty servers", head + `"servers":[]}`, true},
		{"empty object", `{}`, true},
		{"case-different key", server(`,"Error":"x"`), false},
		{"case-different top key", `{"APIVersion":"mvpctl.io/v1alpha2"}`, false},
		{"duplicate key", server(`,"error":"x","error":"y"`), false},
		{"duplicate top key", head + `"kind":"Snapshot","servers":[]}`, false},
		{"duplicate map key", head + `"servers":[{"name":"a","peerProxy":{"peerDiscoverySyncErrors":{"a":1,"a":2}}}]}`, false},
		{"map", head + `"servers":[{"name":"a","peerProxy":{"peerDiscoverySyncErrors":{"lease_list":1,"fetch_discovery":2.5e3}}}]}`, true},
		{"unknown field", server(`,"bogus":1`), false},
		{"unknown top field", head + `"servers":[],"x":{}}`, false},
		{"null string", server(`,"error":null`), false},
		{"null pointer", server(`,"identityLease":null`), false},
		{"null slice", head + `"servers":null}`, false},
		{"escaped key", server(`,"err\u006fr":"x"`), false},
		{"escapes", server(`,"error":"a\"b\\c\/d\b\f\n\r\t\u00e9\u4e2d\u0001"`), true},
		{"surrogate pair", server(`,"error":"\ud83d\ude00"`), false},
		{"lone surrogate", server(`,"error":"\ud83d"`), false},
		{"bad escape", server(`,"error":"\x"`), false},
		{"short unicode escape", server(`,"error":"\u12"`), false},
		{"raw UTF-8", server(`,"error":"é中😀"`), true},
		{"invalid UTF-8", server(",\"error\":\"a\xffb\""), false},
		{"control character", server(",\"error\":\"a\tb\""), false},
		{"bool as string", head + `"servers":[{"name":"a","reachable":"true"}]}`, false},
		{"string as number", head + `"servers":[{"name":1}]}`, false},
		{"int", head + `"cluster":{"lb":{"address":"x","samples":3,"answered":-0,"leases":0,"model":"m"}},"servers":[]}`, true},
		{"int out of range", head + `"cluster":{"lb":{"samples":9223372036854775808}},"servers":[]}`, false},
		{"int with fraction", head + `"cluster":{"lb":{"samples":1.0}},"servers":[]}`, false},
		{"int with exponent", head + `"cluster":{"lb":{"samples":1e2}},"servers":[]}`, false},
		{"leading zero", head + `"cluster":{"lb":{"samples":01}},"servers":[]}`, false},
		{"float", head + `"cluster":{"lb":{"confidence":0.999,"samples":1}},"servers":[]}`, true},
		{"float out of range", head + `"cluster":{"lb":{"confidence":1e400}},"servers":[]}`, false},
		{"float exponent forms", head + `"cluster":{"lb":{"confidence":-1.5E-3}},"servers":[]}`, true},
		{"bad number", head + `"cluster":{"lb":{"confidence":1.}},"servers":[]}`, false},
		{"minus only", head + `"cluster":{"lb":{"confidence":-}},"servers":[]}`, false},
		{"time", head + `"takenAt":"2026-11-23T12:00:00.5+01:00","servers":[]}`, true},
		{"bad time", head + `"takenAt":"yesterday","servers":[]}`, false},
		{"time not a string", head + `"takenAt":5,"servers":[]}`, false},
		{"trailing data", head + `"servers":[]} x`, false},
		{"second object", head + `"servers":[]}{}`, false},
		{"truncated", head + `"servers":[{"name":"a"`, false},
		{"truncated string", head + `"servers":[{"name":"a`, false},
		{"trailing comma", head + `"servers":[],}`, false},
		{"trailing comma in array", head + `"servers":[{"name":"a"},]}`, false},
		{"missing colon", `{"kind" "Snapshot"}`, false},
		{"literal prefix", head + `"servers":[{"name":"a","reachable":truex}]}`, false},
		{"discovery document", head + `"servers":[{"name":"a","apis":{"etag":"\"X\"","items":[{"kind":"APIGroupDiscovery","apiVersion":"apidiscovery.k8s.io/v2","metadata":{"name":"apps","labels":{"a":"b"},"creationTimestamp":"2026-01-01T00:00:00Z"},"versions":[{"version":"v1","freshness":"Current","resources":[{"resource":"deployments","responseKind":{"group":"apps","version":"v1","kind":"Deployment"},"scope":"Namespaced","singularResource":"deployment","verbs":["get"],"subresources":[{"subresource":"status","verbs":["get"],"acceptedTypes":[{"group":"","version":"v1","kind":"Status"}]}]}]}]}]}}]}`, true},
		{"discovery metadata null time", head + `"servers":[{"name":"a","apis":{"items":[{"metadata":{"creationTimestamp":null}}]}}]}`, false},
		{"empty arrays", head + `"servers":[{"name":"a","resources":[],"apis":{"items":[]}}]}`, true},
		{"apiServices", head + `"cluster":{"apiServices":[{"name":"v1.apps","group":"apps","version":"v1","available":{"status":"True","reason":"Local"}},{"name":"v1beta1.metrics.k8s.io","group":"metrics.k8s.io","version":"v1beta1","service":{"namespace":"kube-system","name":"metrics-server","port":443},"available":{"status":"False","reason":"FailedDiscoveryCheck","message":"m","lastTransitionTime":"2026-11-23T12:00:00Z"},"resources":["nodes","pods"],"stale":["a"],"unlisted":["b"]}]},"servers":[]}`, true},
		{"customResourceDefinitions", head + `"cluster":{"customResourceDefinitions":[{"group":"example.com","kind":"Widget","plural":"widgets","versions":[{"name":"v1","served":true,"storage":true},{"name":"v1beta1","served":true,"deprecated":true,"deprecationWarning":"use v1\u001b[2J"},{"name":"v1alpha1","served":false}]}],"listsRead":{"customResourceDefinitions":true,"apiServices":false,"customResourceDefinitionsError":"403"}},"servers":[]}`, true},
		{"CRD served as string", head + `"cluster":{"customResourceDefinitions":[{"group":"g","kind":"K","plural":"ks","versions":[{"name":"v1","served":"true"}]}]},"servers":[]}`, false},
		{"apiService port as string", head + `"cluster":{"apiServices":[{"name":"x","group":"g","version":"v1","service":{"namespace":"n","name":"s","port":"443"}}]},"servers":[]}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := sameAsReference(t, c.name, []byte(c.data)); got != c.accepts {
				t.Errorf("generated decoder accepts: %v, want %v", got, c.accepts)
			}
		})
	}
}

// TestFastDecodeMutations is the differential fuzz test run by go test: random edits of real
// snapshots (bytes changed, dropped, doubled; JSON-significant bytes inserted; lines
// duplicated, which duplicates keys) never make the generated decoder differ from the
// reference. FuzzFastDecode runs the same check under go test -fuzz.
func TestFastDecodeMutations(t *testing.T) {
	snaps := realSnapshotsJSON(t)
	names := make([]string, 0, len(snaps))
	for n := range snaps {
		names = append(names, n)
	}
	iterations := 3000
	if testing.Short() {
		iterations = 300
	}
	rng := rand.New(rand.NewPCG(1, 2))
	accepted := 0
	for i := range iterations {
		name := names[rng.IntN(len(names))]
		data := mutate(rng, snaps[name])
		if sameAsReference(t, fmt.Sprintf("%s mutation %d", name, i), data) {
			accepted++
		}
	}
	// Many edits leave a valid snapshot (a letter in a string changed): the generated decoder
	// must be exercised on those, not only declining.
	t.Logf("%d of %d mutations accepted", accepted, iterations)
	if accepted < iterations/10 {
		t.Errorf("only %d of %d mutations accepted: the test checks little", accepted, iterations)
	}
}

var mutationBytes = []byte(`{}[]",:\ -.0123456789eEtrufalsn` + "\t\n\x00\x7f\xc3\xa9\xff")

func mutate(rng *rand.Rand, src []byte) []byte {
	data := bytes.Clone(src)
	for range 1 + rng.IntN(3) {
		if len(data) == 0 {
			return data
		}
		at := rng.IntN(len(data))
		switch rng.IntN(6) {
		case 0: // change a byte
			data[at] = mutationBytes[rng.IntN(len(mutationBytes))]
		case 1: // drop bytes
			data = append(data[:at], data[min(len(data), at+1+rng.IntN(4)):]...)
		case 2: // insert a byte
			data = append(data[:at], append([]byte{mutationBytes[rng.IntN(len(mutationBytes))]}, data[at:]...)...)
		case 3: // duplicate the line at
			s := bytes.LastIndexByte(data[:at], '\n') + 1
			e := bytes.IndexByte(data[at:], '\n')
			if e < 0 {
				continue
			}
			line := bytes.Clone(data[s : at+e+1])
			data = append(data[:s], append(line, data[s:]...)...)
		case 4: // change a letter's case (a key that matches only case-insensitively)
			if c := data[at]; c >= 'a' && c <= 'z' {
				data[at] = c - 'a' + 'A'
			}
		case 5: // truncate
			data = data[:at]
		}
	}
	return data
}

// FuzzFastDecode: go test -fuzz FuzzFastDecode ./pkg/snapshot.
func FuzzFastDecode(f *testing.F) {
	for _, data := range realSnapshotsJSON(f) {
		if len(data) < 64<<10 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsReference(t, "fuzz input", data)
	})
}

// TestFastDecodePlainText: the generated decoder reports plain text only when every string it
// decoded is printable ASCII, escaped or not; on one goroutine (a small snapshot)
// and on the servers' workers (one above parallelMin, indented and compact), the one string
// that is not plain being in the last server.
func TestFastDecodePlainText(t *testing.T) {
	for _, base := range []*Snapshot{valid(), benchSnapshot(3000)} { // 3000: compact JSON above parallelMin too
		for _, tc := range []struct {
			name, text string
			plain      bool
		}{
			{"plain", "connection refused", true},
			{"escaped quote and HTML characters", `say "no" <&>`, true},
			{"escaped newline", "a\nb", false},
			{"control character", "a\x1bb", false},
			{"non-ASCII", "café", false},
			{"DEL", "a\x7fb", false},
		} {
			s := *base
			s.Servers = append([]Server(nil), base.Servers...)
			s.Servers[len(s.Servers)-1].Error = tc.text
			indented, err := s.Marshal(true)
			if err != nil {
				t.Fatal(err)
			}
			compact, err := json.Marshal(&s)
			if err != nil {
				t.Fatal(err)
			}
			for layout, data := range map[string][]byte{"indented": indented, "compact": compact} {
				var got Snapshot
				ok, plain, _ := fastDecode(data, &got)
				if !ok || plain != tc.plain || got.Servers[len(got.Servers)-1].Error != tc.text {
					t.Errorf("%d bytes %s, %s: ok %t, plain text %t (want %t)", len(data), layout, tc.name, ok, plain, tc.plain)
				}
			}
		}
	}
	// A map's key with DEL is declined (the reference decoder takes it, and validation checks it).
	var s Snapshot
	if ok, _, _ := fastDecode([]byte(`{"apiVersion":"mvpctl.io/v1alpha2","kind":"Snapshot","servers":[{"name":"a","labels":{"a`+"\x7f"+`":"b"}}]}`), &s); ok {
		t.Error("a key holding DEL was decoded")
	}
}
