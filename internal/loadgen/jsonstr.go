package loadgen

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// The strings of the JSON decoding (chunkjson.go): every key and text of
// every response is read here.

// strByte marks the bytes a string's scan stops at: its closing quote,
// an escape, a control character (refused) and the bytes past ASCII
// (looked at as UTF-8 after). One look-up a byte in place of four
// comparisons: every key and text of every response passes here.
var strByte = func() (t [256]bool) {
	for b := range 0x20 {
		t[b] = true
	}
	t['"'], t['\\'] = true, true
	for b := utf8.RuneSelf; b < 256; b++ {
		t[b] = true
	}
	return t
}()

// rawString reads a string, returning its bytes between the quotes and
// whether they need decoding (an escape, a byte that is not UTF-8).
func (s *jsonScanner) rawString() ([]byte, bool, error) {
	start := s.i + 1
	esc, high := false, false
	d := s.data
	for i := start; ; {
		if i = plainRun(d, i); i >= len(d) {
			return nil, false, errJSON
		}
		switch b := d[i]; {
		case b == '"':
			s.i, s.high = i+1, high
			raw := d[start:i]
			// Bytes all ASCII are UTF-8: the second pass only for others.
			return raw, esc || high && !utf8.Valid(raw), nil
		case b >= utf8.RuneSelf:
			high = true
			i++
		case b == '\\':
			esc = true
			n := validEscape(d[i+1:])
			if n == 0 {
				return nil, false, errJSON
			}
			i += n + 1
		default: // a control character
			return nil, false, errJSON
		}
	}
}

// plainRun is where the first byte from i on that strByte marks is (or
// len(d)): found eight bytes at a time, then one at a time in the last
// seven. A byte a time was most of what decoding a response cost.
func plainRun(d []byte, i int) int {
	for ; i+8 <= len(d); i += 8 {
		if m := stopMask(binary.LittleEndian.Uint64(d[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(d) && !strByte[d[i]]; i++ {
	}
	return i
}

// stopMask has the high bit of each byte of x (little-endian) that
// strByte marks set, and its lowest set bit is always in the first such
// byte: a byte below 0x20 wraps its subtraction, a quote or backslash
// makes a zero that wraps, one past ASCII has its high bit. A higher
// byte may be set wrongly, by the borrow from a lower one that wrapped,
// so only the lowest is used.
func stopMask(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote, backslash := x^(ones*'"'), x^(ones*'\\')
	return ((x - ones*0x20) | (quote - ones) | (backslash - ones) | x) & highs
}

// validEscape is the length of the escape at the start of rest (after
// its backslash), 0 when it is none of JSON's.
func validEscape(rest []byte) int {
	if len(rest) == 0 {
		return 0
	}
	switch rest[0] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 1
	case 'u':
		if len(rest) < 5 {
			return 0
		}
		for _, h := range rest[1:5] {
			if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
				return 0
			}
		}
		return 5
	}
	return 0
}
