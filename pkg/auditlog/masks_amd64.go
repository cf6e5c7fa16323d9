package auditlog

import "sync"

var (
	masksOnce sync.Once
	masksOK   bool
)

// haveMasks reports whether masks64 can run here: the CPU has AVX2 and the OS saves the YMM
// registers. It is asked on the first Scan, not at start-up as golang.org/x/sys/cpu's package
// initialiser did for every command: each CPUID is a VM exit on a virtual machine, and only
// traffic replay scans (docs/performance.md, start-up).
func haveMasks() bool {
	masksOnce.Do(detectMasks)
	return masksOK
}

func detectMasks() { masksOK = avx2Usable(cpuid, xgetbv) }

// cpuid runs CPUID with EAX=leaf and ECX=subleaf.
//
//go:noescape
func cpuid(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)

// xgetbv reads the extended control register XCR0 (XGETBV with ECX=0); only valid when CPUID
// reports OSXSAVE.
//
//go:noescape
func xgetbv() (eax, edx uint32)

//go:noescape
func masks64(p *byte, chunks int, quotes, backslashes *uint64) (outside bool)
