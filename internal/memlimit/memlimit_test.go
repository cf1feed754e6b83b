package memlimit

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestDefaultSetsTheSoftLimitUnlessTheEnvironmentDoes(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	t.Setenv("GOMEMLIMIT", "")
	Default()
	if got := debug.SetMemoryLimit(-1); got != Soft {
		t.Errorf("limit %d, want %d", got, Soft)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "1GiB")
	Default()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("GOMEMLIMIT set, but the limit became %d", got)
	}
}
