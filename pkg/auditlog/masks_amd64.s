#include "textflag.h"

// func masks64(p *byte, chunks int, quotes, backslashes *uint64) (outside bool)
//
// For each of chunks 64-byte chunks at p, stores the bitmap of its '"' bytes at quotes[k] and
// of its '\\' bytes at backslashes[k] (bit j is byte j). outside is true when some byte is a
// control character (below 0x20) or not ASCII (0x80 and above). chunks must be at least 1.
TEXT ·masks64(SB), NOSPLIT, $0-33
	MOVQ p+0(FP), SI
	MOVQ chunks+8(FP), CX
	MOVQ quotes+16(FP), DI
	MOVQ backslashes+24(FP), DX
	MOVL $0x22, AX
	MOVQ AX, X10
	VPBROADCASTB X10, Y10
	MOVL $0x5c, AX
	MOVQ AX, X11
	VPBROADCASTB X11, Y11
	MOVL $0x20, AX
	MOVQ AX, X12
	VPBROADCASTB X12, Y12
	VPXOR Y13, Y13, Y13

loop:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	VPCMPEQB Y0, Y10, Y2
	VPCMPEQB Y1, Y10, Y3
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y3, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, (DI)
	VPCMPEQB Y0, Y11, Y4
	VPCMPEQB Y1, Y11, Y5
	VPMOVMSKB Y4, AX
	VPMOVMSKB Y5, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, (DX)
	// 0x20 > b as signed bytes: b below 0x20, or 0x80 and above (negative).
	VPCMPGTB Y0, Y12, Y6
	VPCMPGTB Y1, Y12, Y7
	VPOR Y6, Y13, Y13
	VPOR Y7, Y13, Y13
	ADDQ $64, SI
	ADDQ $8, DI
	ADDQ $8, DX
	DECQ CX
	JNZ loop

	VPTEST Y13, Y13
	SETNE outside+32(FP)
	VZEROUPPER
	RET
