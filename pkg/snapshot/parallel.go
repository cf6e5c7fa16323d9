package snapshot

import (
	"bytes"
	"runtime"

	gojson "github.com/goccy/go-json"
	"github.com/mvpctl/mvpctl/internal/parallel"
)

// parallelMin is the size from which a JSON snapshot's servers are decoded side by side: below
// it, one decode takes a few milliseconds and goroutines would not pay off.
const parallelMin = 1 << 20

// serverSpans locates the top-level "servers" array of a JSON snapshot: array is its [start,
// end) (end 0 when not found), elems each element's, commas the commas between elements.
type serverSpans struct {
	array  [2]int
	elems  [][2]int
	commas int
}

// usable reports whether every element of the array is an object the scan delimited.
func (sp *serverSpans) usable() bool {
	if sp.array[1] == 0 || len(sp.elems) < 2 || sp.commas != len(sp.elems)-1 {
		return false
	}
	for _, e := range sp.elems {
		if e[1] <= e[0] {
			return false
		}
	}
	return true
}

// decodeInParallel decodes a large JSON snapshot with its servers decoded side by side, one
// goroutine per server up to the number of CPUs: the rest of the document (with "servers": [])
// and each server object are decoded as strictly as the whole document is (unknown fields,
// duplicate keys, data after the object). It reports false, leaving s to be reset, on anything
// unusual or any error: the caller then decodes the document in one piece, which gives the
// error its usual wording and position.
func decodeInParallel(data []byte, s *Snapshot) bool {
	if len(data) < parallelMin || runtime.GOMAXPROCS(0) < 2 {
		return false
	}
	var spans serverSpans
	if scanKeys(data, &spans) != nil || !spans.usable() {
		return false
	}
	rest := make([]byte, 0, spans.array[0]+2+len(data)-spans.array[1])
	rest = append(append(append(rest, data[:spans.array[0]]...), "[]"...), data[spans.array[1]:]...)
	if decodeStrict(rest, s) != nil {
		return false
	}
	servers := make([]Server, len(spans.elems))
	failed := make([]bool, len(spans.elems))
	parallel.Each(len(spans.elems), func(i int) {
		e := spans.elems[i]
		failed[i] = decodeStrict(data[e[0]:e[1]], &servers[i]) != nil
	})
	for _, f := range failed {
		if f {
			return false
		}
	}
	s.Servers = servers
	return true
}

// decodeStrict decodes one JSON value into v with unknown fields rejected and checks that only
// white space follows it.
func decodeStrict(data []byte, v any) error {
	dec := gojson.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	return trailing(data, int(dec.InputOffset()))
}
