package snapshot

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// TestDecodeInParallel: a large JSON snapshot decoded with its servers side by side equals the
// same document decoded in one piece; and every input the parallel path cannot take whole (an
// unknown field or a duplicate key inside a server, a server that is not an object, trailing
// data) is declined, so the one-piece decode reports it as before.
func TestDecodeInParallel(t *testing.T) {
	data, err := benchSnapshot(6000).Marshal(true)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < parallelMin {
		t.Fatalf("fixture is %d bytes, under parallelMin", len(data))
	}
	var par, one Snapshot
	if !decodeInParallel(data, &par) {
		t.Fatal("the parallel path declined a well-formed snapshot")
	}
	if err := decodeStrict(data, &one); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(par, one) {
		t.Fatal("parallel and one-piece decodes differ")
	}
	compact := bytes.ReplaceAll(bytes.ReplaceAll(data, []byte("\n"), nil), []byte("  "), nil)
	var parCompact Snapshot
	if !decodeInParallel(compact, &parCompact) || !reflect.DeepEqual(parCompact, one) {
		t.Fatal("compact JSON (what the YAML fast path produces) is not decoded the same")
	}

	second := bytes.Index(data, []byte(`"name": "kas-b"`))
	for _, c := range []struct {
		name   string
		broken []byte
	}{
		{"unknown field in a server", splice(data, second, `"nmae": "x", `)},
		{"duplicate key in a server", splice(data, second, `"name": "x", `)},
		{"trailing data", append(append([]byte{}, data...), " {}"...)},
		{"a server that is a string", bytes.Replace(data, []byte(`"servers": [`), []byte(`"servers": ["x", `), 1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			var s Snapshot
			if decodeInParallel(c.broken, &s) {
				t.Fatal("accepted")
			}
			if _, err := Decode(c.broken); err == nil {
				t.Fatal("Decode accepted it")
			} else if strings.Contains(err.Error(), "panic") {
				t.Fatal(err)
			}
		})
	}
}

func splice(data []byte, at int, s string) []byte {
	out := append([]byte{}, data[:at]...)
	return append(append(out, s...), data[at:]...)
}
