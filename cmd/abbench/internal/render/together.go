package render

import (
	"fmt"
	"strings"

	"github.com/abbench/abbench/internal/campaign"
	"github.com/abbench/abbench/internal/textout"
)

// writeTogether says how the blocks of a concurrent campaign ran, as the
// runs' status.json times (and, under Slurm, their ranks' nodes) say:
// how many blocks ran side by side, and each that did not, or shared a
// node.
func writeTogether(out *textout.Writer, blocks []campaign.Together) {
	side := 0
	var apart []string
	for _, b := range blocks {
		runs := strings.Trim(fmt.Sprint(b.Runs), "[]")
		switch {
		case !b.Overlapped:
			apart = append(apart, fmt.Sprintf("runs %s did not overlap in time", runs))
		case len(b.Shared) > 0:
			side++
			apart = append(apart, fmt.Sprintf("runs %s shared node %s", runs, strings.Join(b.Shared, ", ")))
		default:
			side++
		}
	}
	out.Printf("\nside by side: the runs of %d of %d blocks that ended overlapped in time (their status.json started and ended)\n", side, len(blocks))
	for _, a := range apart {
		out.Printf("  %s\n", a)
	}
}
