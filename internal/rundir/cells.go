package rundir

// PlannedCell is one cell of a sweep as its plan records it: each cell
// is a matched A/B of its own, with its own matched digest.
type PlannedCell struct {
	Name          string `json:"name"`
	MatchedDigest string `json:"matched_digest"`
}

// cellRuns are the runs (N-ARM) a run's campaign reference lists, and,
// in a sweep, fill in its cell: a cell is compared whole, within itself,
// so its runs are those of its cell alone, and its matched digest is
// the cell's. Outside a sweep, every run of the plan.
func (p *Plan) cellRuns(ref *CampaignRef) []string {
	cell := ""
	for _, r := range p.Runs {
		if r.Index == ref.Index {
			cell = r.Cell
		}
	}
	if len(p.Cells) > 0 {
		ref.Cell = cell
		for _, c := range p.Cells {
			ref.Cells = append(ref.Cells, c.Name)
			if c.Name == cell {
				ref.MatchedDigest = c.MatchedDigest
			}
		}
	}
	runs := []string{}
	for _, r := range p.Runs {
		if r.Cell == cell {
			runs = append(runs, RunID(r.Index, r.Arm))
		}
	}
	return runs
}
