package history

import (
	"cmp"
	"strconv"
	"strings"
)

// cellOrder orders a sweep's cells as a person reads its matrix, never as
// text (which puts concurrency=128 before concurrency=32 before
// concurrency=8): axis by axis, two numbers by value, other values in the
// order the store first holds them, which is the matrix's (FromSweep adds
// a sweep's cells in cell order). firstSeen numbers each AXIS=VALUE by
// its first entry (seeValues).
func cellOrder(a, b string, firstSeen map[string]int) int {
	if a == b {
		return 0
	}
	as, bs := strings.Split(a, ","), strings.Split(b, ",")
	for i := range min(len(as), len(bs)) {
		axisA, va, _ := strings.Cut(as[i], "=")
		axisB, vb, _ := strings.Cut(bs[i], "=")
		if axisA != axisB {
			break // other matrices: the store's order
		}
		if va == vb {
			continue
		}
		x, errA := strconv.ParseFloat(va, 64)
		y, errB := strconv.ParseFloat(vb, 64)
		if errA == nil && errB == nil && x != y {
			return cmp.Compare(x, y)
		}
		if o := cmp.Compare(firstSeen[as[i]], firstSeen[bs[i]]); o != 0 {
			return o
		}
		break
	}
	return strings.Compare(a, b)
}

// seeValues numbers each AXIS=VALUE of cell not seen before, in order.
func seeValues(cell string, firstSeen map[string]int) {
	if cell == "" {
		return
	}
	for _, v := range strings.Split(cell, ",") {
		if _, ok := firstSeen[v]; !ok {
			firstSeen[v] = len(firstSeen)
		}
	}
}
