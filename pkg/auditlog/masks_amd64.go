package auditlog

import "golang.org/x/sys/cpu"

// haveMasks is true when masks64 can run (it uses AVX2).
var haveMasks = cpu.X86.HasAVX2

//go:noescape
func masks64(p *byte, chunks int, quotes, backslashes *uint64) (outside bool)
