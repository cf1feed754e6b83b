package main

import (
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/decide"
)

// The table's header lists the per-look levels as decimals, as every
// report does: 0.000024, not 2.4e-05.
func TestLevelsAreDecimals(t *testing.T) {
	seq, err := decide.NewSequential(3, 14, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if got := levels(seq); strings.Contains(got, "e-") || !strings.HasPrefix(got, "3: 0.000024, 4: 0.00021, ") {
		t.Errorf("levels %q", got)
	}
}
