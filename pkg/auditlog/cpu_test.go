package auditlog

import "testing"

// TestAVX2Usable: AVX2 counts only with every condition met; each row removes one.
func TestAVX2Usable(t *testing.T) {
	const (
		allXCR0  = xcr0SSE | xcr0AVX | 1 // x87 too, as every OS sets it
		allLeaf1 = leaf1ECXOSXSAVE | 1<<28 | 1<<20
		allLeaf7 = leaf7EBXAVX2 | 1<<3 | 1<<8
	)
	tests := []struct {
		name                 string
		maxLeaf, ecx1, ebx7  uint32
		xcr0                 uint32
		want, wantXGETBVUsed bool
	}{
		{"everything", 0xd, allLeaf1, allLeaf7, allXCR0, true, true},
		{"leaf 7 exactly", 7, allLeaf1, allLeaf7, allXCR0, true, true},
		{"no leaf 7", 6, allLeaf1, allLeaf7, allXCR0, false, false},
		{"no OSXSAVE", 0xd, allLeaf1 &^ leaf1ECXOSXSAVE, allLeaf7, allXCR0, false, false},
		{"OS does not save YMM", 0xd, allLeaf1, allLeaf7, allXCR0 &^ xcr0AVX, false, true},
		{"OS does not save XMM", 0xd, allLeaf1, allLeaf7, allXCR0 &^ xcr0SSE, false, true},
		{"no AVX2", 0xd, allLeaf1, allLeaf7 &^ leaf7EBXAVX2, allXCR0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			xgetbvUsed := false
			cpuid := func(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32) {
				if subleaf != 0 {
					t.Fatalf("cpuid(%d, %d): subleaf other than 0", leaf, subleaf)
				}
				if leaf > tt.maxLeaf {
					t.Fatalf("cpuid(%d) beyond the highest leaf %d", leaf, tt.maxLeaf)
				}
				switch leaf {
				case 0:
					return tt.maxLeaf, 0, 0, 0
				case 1:
					return 0, 0, tt.ecx1, 0
				case 7:
					return 0, tt.ebx7, 0, 0
				}
				return 0, 0, 0, 0
			}
			xgetbv := func() (eax, edx uint32) {
				if tt.ecx1&leaf1ECXOSXSAVE == 0 {
					t.Fatal("xgetbv without OSXSAVE (it faults)")
				}
				xgetbvUsed = true
				return tt.xcr0, 0
			}
			if got := avx2Usable(cpuid, xgetbv); got != tt.want || xgetbvUsed != tt.wantXGETBVUsed {
				t.Errorf("avx2Usable = %v (xgetbv run: %v), want %v (%v)", got, xgetbvUsed, tt.want, tt.wantXGETBVUsed)
			}
		})
	}
}
