package evidence

import "bytes"

// byteSet finds, in one pass over a block, the next place holding any of
// a few bytes (the anchors of every rule at once), in file order, where a
// pass per anchor byte read each block once per byte and left the lines'
// starts to be sorted. With AVX2 (byteset_amd64.s), a set of ASCII bytes
// of distinct low nibbles is looked up in a table by nibble, 32 bytes at
// a time, at about twice the speed of two IndexByte passes; else each
// byte's next place is found with bytes.IndexByte and kept until passed,
// which reads the block once per byte, as before, but answers in order.
type byteSet struct {
	set   []byte
	wide  bool     // search with indexNibble
	table [16]byte // nibbleTable(set)
	next  []int    // per byte of set: its next place in block; -1: none left
	block []byte
}

// wideSearch says whether the set is searched with indexNibble; a
// variable, so that tests search with the pure-Go path as well.
var wideSearch = func(set []byte) bool { return haveAVX2 && nibbleSet(set) }

// nibbleSet says whether set, of one byte or more, is ASCII bytes of
// distinct low nibbles: a table by nibble then holds it exactly.
func nibbleSet(set []byte) bool {
	var seen [16]bool
	for _, b := range set {
		if b >= 0x80 || seen[b&15] {
			return false
		}
		seen[b&15] = true
	}
	return len(set) > 0
}

// nibbleTable is, by low nibble, the byte of set with that nibble, and for
// a nibble no byte of set has, a byte of another nibble: no byte equals
// its entry then.
func nibbleTable(set []byte) [16]byte {
	var t [16]byte
	for n := range t {
		t[n] = byte(n+1) & 15
	}
	for _, b := range set {
		t[b&15] = b
	}
	return t
}

func newByteSet(set []byte) *byteSet {
	return &byteSet{set: set, wide: wideSearch(set), table: nibbleTable(set), next: make([]int, len(set))}
}

// reset starts the search of a new block.
func (s *byteSet) reset(block []byte) {
	s.block = block
	for i := range s.next {
		s.next[i] = -2 // not yet looked for
	}
}

// index is the first place at or after from in the block that holds a byte
// of the set, or -1. Calls for one block ask from places that never fall.
func (s *byteSet) index(from int) int {
	if from >= len(s.block) {
		return -1
	}
	if s.wide {
		if i := indexNibble(s.block[from:], &s.table); i >= 0 {
			return from + i
		}
		return -1
	}
	first := -1
	for k, b := range s.set {
		if n := s.next[k]; n != -1 && n < from {
			s.next[k] = indexByteFrom(s.block, from, b)
		}
		if n := s.next[k]; n >= 0 && (first < 0 || n < first) {
			first = n
		}
	}
	return first
}

// indexByteFrom is the first place at or after from in block holding b,
// or -1.
func indexByteFrom(block []byte, from int, b byte) int {
	if i := bytes.IndexByte(block[from:], b); i >= 0 {
		return from + i
	}
	return -1
}

// indexNibbleGo is indexNibble a byte at a time: for the short ends of
// blocks, and the reference the assembly is held to.
func indexNibbleGo(s []byte, table *[16]byte) int {
	for i, c := range s {
		if c < 0x80 && table[c&15] == c {
			return i
		}
	}
	return -1
}
