package complete

import (
	"slices"
	"testing"

	"github.com/spf13/cobra"

	armrun "github.com/abbench/abbench/internal/arms"
)

// TestRanksCompletesEveryDriver: --ranks completes to every rank driver
// there is, read from the drivers' one list (completion once missed
// kubernetes).
func TestRanksCompletesEveryDriver(t *testing.T) {
	root := &cobra.Command{Use: "abbench"}
	arm := &cobra.Command{Use: "arm"}
	arm.Flags().String("ranks", "", "")
	root.AddCommand(arm)
	Flags(root)
	f, ok := arm.GetFlagCompletionFunc("ranks")
	if !ok {
		t.Fatal("--ranks has no completion")
	}
	got, _ := f(arm, nil, "")
	if want := armrun.RankDrivers(); !slices.Equal(got, want) || len(want) < 3 {
		t.Fatalf("--ranks completes %q, want every driver %q", got, want)
	}
}
