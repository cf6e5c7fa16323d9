package snapshot

import (
	"os"
	"testing"
)

func BenchmarkTmpSkew(b *testing.B) {
	data, _ := os.ReadFile("/tmp/skew.json")
	b.Run("decodeJSON", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var s Snapshot
			if err, _ := decodeJSON(data, &s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Decode(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("convert+validate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var s Snapshot
			decodeJSON(data, &s)
			d, _ := s.convert()
			s.Validate()
			s.checkAgreements(d)
		}
	})
}
