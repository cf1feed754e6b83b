// Package history keeps a store of accepted runs and comparisons across
// campaigns (one JSON Lines file, append-only) and finds where a metric's
// level changed (E-Divisive means). abbench history add/show are its CLI;
// docs/history.md is its guide.
package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
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
	// Key identifies the entry: a run's token, a comparison's arms and
	// tokens hashed; add skips keys already stored.
	Key string `json:"key"`
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
// empty. A last line without its newline is a write that was cut short
// (the writer died): it is skipped and said in torn. Any other line that is
// not an entry is an error naming the file and line.
func Read(path string) (entries []Entry, torn string, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, "", nil
	} else if err != nil {
		return nil, "", err
	}
	lines := bytes.Split(data, []byte("\n"))
	for i, line := range lines {
		last := i == len(lines)-1
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e Entry
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		derr := dec.Decode(&e)
		if _, more := dec.Token(); derr == nil && more != io.EOF {
			// Two entries run together (or anything after one) would
			// lose all but the first: the line is not an entry.
			derr = errors.New("more than one JSON value on the line")
		}
		if derr != nil || e.Schema != Schema {
			if last { // no newline after it: cut short
				torn = fmt.Sprintf("%s:%d: an unfinished line (a writer stopped mid-line) is ignored", path, i+1)
				continue
			}
			if derr == nil {
				derr = fmt.Errorf("schema %q, want %q", e.Schema, Schema)
			}
			return nil, "", fmt.Errorf("%s:%d: not a history entry: %v (the store is written only by abbench history add; restore the line or remove it)", path, i+1, derr)
		}
		entries = append(entries, e)
	}
	return entries, torn, nil
}

// Append adds the entries whose keys the store does not hold yet and
// returns how many it added. Writers are serialised by an exclusive lock on
// the store; the new lines go in one write, after a newline that closes an
// unfinished last line, and are synced before the lock is released, so
// concurrent adds neither interleave nor lose lines.
func Append(path string, entries []Entry) (int, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if err := lock(f); err != nil {
		return 0, fmt.Errorf("locking %s: %w", path, err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	held, _, err := Read(path)
	if err != nil {
		return 0, err
	}
	have := map[string]bool{}
	for _, e := range held {
		have[e.Kind+" "+e.Key] = true
	}
	var buf bytes.Buffer
	if endsOpen(f) {
		buf.WriteByte('\n')
	}
	added := 0
	for _, e := range entries {
		if have[e.Kind+" "+e.Key] {
			continue
		}
		have[e.Kind+" "+e.Key] = true
		e.Schema = Schema
		line, err := json.Marshal(e)
		if err != nil {
			return 0, err
		}
		buf.Write(line)
		buf.WriteByte('\n')
		added++
	}
	if added == 0 {
		return 0, nil
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		return 0, fmt.Errorf("appending to %s: %w", path, err)
	}
	return added, f.Sync()
}

// lock takes the store's exclusive lock, waiting at most a minute (another
// add holds it only while it writes).
func lock(f *os.File) error {
	deadline := time.Now().Add(time.Minute)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil || !errors.Is(err, syscall.EWOULDBLOCK) {
			return err
		}
		if time.Now().After(deadline) {
			return errors.New("another abbench history add held it for a minute")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// endsOpen says whether the file's last byte is not a newline.
func endsOpen(f *os.File) bool {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return false
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, st.Size()-1); err != nil && err != io.EOF {
		return false
	}
	return last[0] != '\n'
}
