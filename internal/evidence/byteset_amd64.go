package evidence

import "golang.org/x/sys/cpu"

// haveAVX2: the processor and the system support AVX2 (x/sys/cpu checks
// both).
var haveAVX2 = cpu.X86.HasAVX2

// indexNibbleAVX2 is the first index in s (at least 32 bytes) of a byte of
// the set whose table is table (nibbleTable), or -1 (byteset_amd64.s).
//
//go:noescape
func indexNibbleAVX2(s []byte, table *[16]byte) int

// indexNibble is indexNibbleAVX2 for any s; only called where haveAVX2.
func indexNibble(s []byte, table *[16]byte) int {
	if len(s) < 32 {
		return indexNibbleGo(s, table)
	}
	return indexNibbleAVX2(s, table)
}
