package auditlog

// CPUID and XCR0 bits that AVX2 code needs (Intel SDM vol. 2A, CPUID; vol. 1, 13.3), the
// test golang.org/x/sys/cpu makes for X86.HasAVX2.
const (
	leaf1ECXOSXSAVE = 1 << 27 // the OS enabled XSAVE: XGETBV may run
	xcr0SSE         = 1 << 1  // the OS saves the XMM registers
	xcr0AVX         = 1 << 2  // and the upper halves of the YMM registers
	leaf7EBXAVX2    = 1 << 5
)

// avx2Usable reports whether AVX2 instructions can run, from the CPUID and XGETBV results
// the two functions return: the CPU has leaf 7 and reports AVX2 there, and the OS has turned
// on XSAVE and saves the XMM and YMM registers on a context switch (without that, a YMM
// register's upper half may be lost between two instructions).
func avx2Usable(cpuid func(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32), xgetbv func() (eax, edx uint32)) bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	if _, _, ecx1, _ := cpuid(1, 0); ecx1&leaf1ECXOSXSAVE == 0 {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&(xcr0SSE|xcr0AVX) != xcr0SSE|xcr0AVX {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&leaf7EBXAVX2 != 0
}
