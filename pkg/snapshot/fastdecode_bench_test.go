//go:build !snapdecode

package snapshot

import (
	"fmt"
	"testing"
)

// BenchmarkDecodeJSON decodes JSON snapshots (benchSnapshot) with the generated decoder
// ("generated") and with the reference decoder it falls back to ("reference"), in one run:
//
//	go test ./pkg/snapshot/ -run '^$' -bench 'BenchmarkDecodeJSON' -benchmem
func BenchmarkDecodeJSON(b *testing.B) {
	inputs := map[string][]byte{}
	var names []string
	for _, gvrs := range []int{1_000, 20_000} {
		data, err := benchSnapshot(gvrs).Marshal(true)
		if err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("bench-gvrs=%d", gvrs)
		inputs[name], names = data, append(names, name)
	}
	for _, name := range names {
		data := inputs[name]
		for _, impl := range []struct {
			name   string
			decode func(*Snapshot) bool
		}{
			{"generated", func(s *Snapshot) bool { ok, _, _ := fastDecode(data, s); return ok }},
			{"reference", func(s *Snapshot) bool { err, _ := decodeJSONReference(data, s); return err == nil }},
		} {
			b.Run(name+"/"+impl.name, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					var s Snapshot
					if !impl.decode(&s) {
						b.Fatal("declined")
					}
				}
			})
		}
	}
}
