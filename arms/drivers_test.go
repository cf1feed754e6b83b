package arms

import (
	"errors"
	"strings"
	"testing"
)

// TestRanksNamesEveryDriver: --ranks takes every driver's name and
// refuses any other with a typed error that lists them all; the default
// is local.
func TestRanksNamesEveryDriver(t *testing.T) {
	names := RankDrivers()
	if len(names) != 3 || names[0] != RanksLocal {
		t.Fatalf("drivers %q, want local first", names)
	}
	for _, n := range append(names, "") {
		if err := CheckRanks(n); err != nil {
			t.Errorf("--ranks %q: %v", n, err)
		}
	}
	err := CheckRanks("flux")
	var unknown *UnknownRanksError
	if !errors.As(err, &unknown) || unknown.Name != "flux" || err.Error() != `ranks "flux": choose local, srun or kubernetes` {
		t.Fatalf("--ranks flux: %v", err)
	}
	for _, n := range names {
		if !strings.Contains(RanksHelp(), n+" (") {
			t.Errorf("--ranks's help %q does not say %s", RanksHelp(), n)
		}
	}
}
