package history

import (
	"bytes"
	"fmt"
	"maps"
	"slices"

	"github.com/abbench/abbench/internal/reason"
)

// DuplicateRunError says an add holds a run of a campaign plan whose
// place (plan digest, run index) the store holds already under another
// run token: the same planned run made again (a CI stage run again, a
// campaign's run made again by abbench arm --plan), which would weigh its
// arm twice in the series. Each add's comparison catches a run given
// twice to it; this catches one given to two adds. Nothing is added.
type DuplicateRunError struct {
	Store      string
	Line       int // the store's line of the stored run
	PlanDigest string
	RunIndex   int
	Arm        string
	Stored     string // the stored run's token
	Given      string // the token of the run given now
}

func (e *DuplicateRunError) Error() string {
	return fmt.Sprintf("%s:%d: %s (arm %s): run %d of campaign plan %s is stored already as run %s; run %s given now is the same planned run made again: a planned run counts once, nothing was added (add the runs of the plan as first made, or plan a new campaign)",
		e.Store, e.Line, reason.DuplicateRun, e.Arm, e.RunIndex, short(e.PlanDigest), e.Stored, e.Given)
}

// plannedOnce refuses entries holding a run whose plan place the complete
// lines of a store's content hold under another token. Only a line that
// holds an entry's plan digest can be such a run (json.Marshal writes a
// hex digest as its bytes), so only those lines are read in full: an add
// of a planned campaign costs a search per plan, not a reading of every
// line.
func plannedOnce(path string, data []byte, entries []Entry) error {
	given := map[string]map[int]Entry{} // plan digest: run index: run
	for _, e := range entries {
		if e.Kind == KindRun && e.PlanDigest != "" {
			if given[e.PlanDigest] == nil {
				given[e.PlanDigest] = map[int]Entry{}
			}
			given[e.PlanDigest][e.RunIndex] = e
		}
	}
	dec := newEntryDecoder()
	for _, digest := range slices.Sorted(maps.Keys(given)) {
		runs := given[digest]
		for at := 0; ; {
			i := bytes.Index(data[at:], []byte(digest))
			if i < 0 {
				break
			}
			start := bytes.LastIndexByte(data[:at+i], '\n') + 1
			end := at + i + bytes.IndexByte(data[at+i:], '\n') // data ends with a newline
			line := bytes.Count(data[:start], []byte{'\n'}) + 1
			stored, err := dec.entry(path, line, data[start:end])
			if err != nil {
				return err
			}
			if e, ok := runs[stored.RunIndex]; ok && stored.Kind == KindRun && stored.PlanDigest == digest && stored.Key != e.Key {
				return &DuplicateRunError{Store: path, Line: line, PlanDigest: digest, RunIndex: e.RunIndex, Arm: e.Arm, Stored: stored.Key, Given: e.Key}
			}
			at = end + 1
		}
	}
	return nil
}
