#include "textflag.h"

// out: 0xff in each byte of src that is a byte of the set, else 0. The set
// is a table by low nibble in Y1 (VPSHUFB looks up each byte's entry, and
// gives 0 for a byte from 0x80 on): a byte is in the set when it equals
// its entry.
#define INSET(src, out) \
	VPSHUFB  src, Y1, out \
	VPCMPEQB src, out, out

// func indexNibbleAVX2(s []byte, table *[16]byte) int
// s holds at least 32 bytes: its end is searched by one last load that
// overlaps bytes already searched.
TEXT ·indexNibbleAVX2(SB), NOSPLIT, $0-40
	MOVQ s_base+0(FP), DI
	MOVQ s_len+8(FP), CX
	MOVQ table+24(FP), AX
	VBROADCASTI128 (AX), Y1
	MOVQ DI, SI
	LEAQ (DI)(CX*1), DX  // the end of s
	LEAQ -64(DX), R9     // the last place a 64-byte step may start

loop64:
	CMPQ SI, R9
	JA   step32
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y8
	INSET(Y0, Y5)
	INSET(Y8, Y9)
	VPOR   Y5, Y9, Y6
	VPTEST Y6, Y6
	JNZ  found64
	ADDQ $64, SI
	JMP  loop64

found64:
	VPMOVMSKB Y5, BX
	VPMOVMSKB Y9, R8
	SHLQ $32, R8
	ORQ  R8, BX
	BSFQ BX, BX
	JMP  done

step32:
	LEAQ -32(DX), R9     // the last place a 32-byte step may start
	CMPQ SI, R9
	JA   tail
	VMOVDQU (SI), Y0
	INSET(Y0, Y5)
	VPMOVMSKB Y5, BX
	TESTL BX, BX
	JNZ  found32
	ADDQ $32, SI

tail:
	// fewer than 32 bytes left: the last 32 of s, less those searched
	CMPQ SI, DX
	JAE  notfound
	VMOVDQU (R9), Y0
	INSET(Y0, Y5)
	VPMOVMSKB Y5, BX
	MOVQ SI, CX
	SUBQ R9, CX          // bytes of the load already searched
	SHRL CX, BX
	TESTL BX, BX
	JZ   notfound

found32:
	BSFL BX, BX

done:
	ADDQ SI, BX
	SUBQ DI, BX
	MOVQ BX, ret+32(FP)
	VZEROUPPER
	RET

notfound:
	MOVQ $-1, ret+32(FP)
	VZEROUPPER
	RET
