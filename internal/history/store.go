// Package history keeps a store of accepted runs and comparisons across
// campaigns (one JSON Lines file, append-only) and finds where a metric's
// level changed (E-Divisive means). abbench history add/show are its CLI;
// docs/history.md is its guide.
package history

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"time"
)

// Schema names the store's line format; a line of another schema is an
// error, not skipped.
const Schema = "abbench-history-v1"

// Entry kinds.
const (
	KindRun        = "run"
	KindComparison = "comparison"
)

// Entry is one line of the store: a run's metric or a comparison's delta.
type Entry struct {
	Schema string `json:"schema"`
	Kind   string `json:"kind"`
	// Added is when abbench history add wrote the line; Time is when the
	// run started (a comparison: its latest run).
	Added         time.Time `json:"added"`
	Time          time.Time `json:"time"`
	Scenario      string    `json:"scenario"`
	MatchedDigest string    `json:"matched_digest"`
	Arm           string    `json:"arm"`
	Metric        string    `json:"metric"`
	HigherBetter  bool      `json:"higher_is_better"`
	// Cell is a sweep's cell the entry is of ("" outside a sweep): part
	// of the series key, so each cell is a series of its own.
	Cell string `json:"cell,omitempty"`
	// Key identifies the entry: a run's token, a comparison's arms and
	// tokens hashed; add skips keys already stored.
	Key string `json:"key"`
	// PlanDigest and RunIndex are a run's place in the campaign plan it
	// was made for (its signed provenance's), absent for a run of no plan
	// and in entries added before they were kept: a planned run counts
	// once, so an add refuses a run whose place the store holds under
	// another token (*DuplicateRunError).
	PlanDigest string `json:"plan_digest,omitempty"`
	RunIndex   int    `json:"run_index,omitempty"`
	// Machine is the hardware class the runs ran on (CPU and GPU models
	// per host); Source the system under test's commit when recorded.
	Machine string `json:"machine,omitempty"`
	Source  string `json:"source,omitempty"`
	Build   string `json:"build,omitempty"`
	Signed  bool   `json:"signed"`
	// A run's value of Metric.
	Value *float64 `json:"value,omitempty"`
	// A comparison's treatment Arm against Baseline.
	Baseline string      `json:"baseline,omitempty"`
	DeltaPct *float64    `json:"delta_pct,omitempty"`
	Interval *[2]float64 `json:"interval,omitempty"`
	P        *float64    `json:"p,omitempty"`
	Verdict  string      `json:"verdict,omitempty"`
	N        int         `json:"n,omitempty"`
	Method   string      `json:"method,omitempty"`
}

// Read returns the store's entries in file order. A missing store is
// empty. The bytes after the last newline are a write that was cut short
// (a writer died mid-line; the next add removes them): they are skipped
// and said in torn. A complete line that is not an entry is an error
// naming the file and line, and how to mend it.
func Read(path string) (entries []Entry, torn string, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, "", nil
	} else if err != nil {
		return nil, "", err
	}
	entries, complete, err := parse(path, data)
	return entries, tornNote(path, data, complete), err
}

// parse reads the complete lines of a store's content; complete is their
// length in bytes: everything after it is an unfinished line.
func parse(path string, data []byte) (entries []Entry, complete int, err error) {
	complete = bytes.LastIndexByte(data, '\n') + 1
	dec := newEntryDecoder()
	entries = make([]Entry, 0, bytes.Count(data[:complete], []byte("\n")))
	for i, rest := 0, data[:complete]; len(rest) > 0; i++ {
		end := bytes.IndexByte(rest, '\n')
		line := rest[:end]
		rest = rest[end+1:]
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		e, err := dec.entry(path, i+1, line)
		if err != nil {
			return nil, 0, err
		}
		entries = append(entries, e)
	}
	return entries, complete, nil
}

// entry decodes line n of the store; an error names it and how to mend it.
func (d *entryDecoder) entry(path string, n int, line []byte) (Entry, error) {
	e, err := d.decode(line)
	if err == nil && e.Schema != Schema {
		err = fmt.Errorf("schema %q, want %q", e.Schema, Schema)
	}
	if err != nil {
		return e, fmt.Errorf("%s:%d: not a history entry: %w (abbench history add writes whole lines only, so something else changed it: "+
			"restore the line from a copy of the store, or delete it with sed -i '%dd' %s and add its campaign again)", path, n, err, n, path)
	}
	return e, nil
}

// tornNote says where an unfinished last line is, or "" when there is none.
func tornNote(path string, data []byte, complete int) string {
	if complete == len(data) {
		return ""
	}
	line := bytes.Count(data, []byte("\n")) + 1
	return fmt.Sprintf("%s:%d: an unfinished last line (%d bytes, a writer stopped mid-line) is not an entry", path, line, len(data)-complete)
}
