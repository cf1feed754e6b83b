package loadgen

import (
	"errors"
	"io"
	"maps"
)

// KeptOutcomes is how many outcomes a run keeps in Result.Outcomes (and
// Result.Warmup): the first, for a program that looks at them. What the
// run says of every request is counted and spooled as it ends (tally),
// so a run's memory does not grow with its requests.
var KeptOutcomes = 10_000

// tally is what a phase's outcomes add up to, each counted as it ends in
// order of sending and then given up: the counts and latencies of the
// summary, the first outcomes kept, the first failure, and (spooled)
// each request's line of the per-request file and its values in the
// record's per-request arrays.
type tally struct {
	kept                 []Outcome
	requested, completed int
	failures             map[string]int
	inTokens, outTokens  int
	ttft, tpot, itl, e2e latency
	first                *Outcome // the first failure
	spooled              bool
	lines                *spool
	arrays               [len(recordArrays)]*spool
	buf                  []byte
	err                  error // a spool that could not be made
}

// spoolSpec is where a tally spools: in dir, or in memory; its lines
// into perRequest itself when that is named, or nowhere with noLines.
type spoolSpec struct {
	dir        string
	inMemory   bool
	perRequest string
	noLines    bool
}

// newTally starts a tally, spooled as sp says (nil: not spooled).
func newTally(sp *spoolSpec) *tally {
	t := &tally{failures: map[string]int{}, spooled: sp != nil}
	if sp == nil {
		return t
	}
	var errs []error
	var err error
	switch {
	case sp.noLines:
	case sp.perRequest != "":
		t.lines, err = newFileSpool(sp.perRequest)
	default:
		t.lines, err = newSpool(sp.dir, sp.inMemory)
	}
	errs = append(errs, err)
	for i := range t.arrays {
		t.arrays[i], err = newSpool(sp.dir, sp.inMemory)
		errs = append(errs, err)
	}
	if t.err = errors.Join(errs...); t.err != nil {
		t.close()
		t.spooled = false
	}
	return t
}

// tallyOf is the tally of outcomes held whole (a Result made by hand),
// spooled in memory when spooled.
func tallyOf(outs []Outcome, spooled bool) *tally {
	var sp *spoolSpec
	if spooled {
		sp = &spoolSpec{inMemory: true}
	}
	t := newTally(sp)
	for i := range outs {
		t.add(&outs[i])
	}
	return t
}

// add counts o, which the caller may then reuse.
func (t *tally) add(o *Outcome) {
	if len(t.kept) < KeptOutcomes {
		t.kept = append(t.kept, *o)
	}
	if t.spooled {
		t.spool(o)
	}
	t.requested++
	if !o.OK() {
		t.failures[o.Kind]++
		if t.first == nil {
			first := *o
			t.first = &first
		}
		return
	}
	t.completed++
	t.inTokens += o.PromptTokens
	t.outTokens += o.OutputTokens
	t.ttft.add(ms(o.TTFT))
	t.e2e.add(ms(o.E2E))
	if o.OutputTokens > 1 {
		t.tpot.add(ms(o.E2E-o.TTFT) / float64(o.OutputTokens-1))
	}
	for _, d := range o.ITLs {
		t.itl.add(ms(d))
	}
}

// spool writes o's line and its values of the record's arrays, each
// after the separator MarshalIndent writes before a value of an array of
// the record.
func (t *tally) spool(o *Outcome) {
	if t.lines != nil {
		t.buf = append(o.appendJSON(t.buf[:0]), '\n')
		t.lines.write(t.buf)
	}
	for i, a := range recordArrays {
		t.buf = t.buf[:0]
		if t.requested > 0 {
			t.buf = append(t.buf, ',')
		}
		t.buf = a.each(append(t.buf, "\n    "...), o)
		t.arrays[i].write(t.buf)
	}
}

// summary is the tally's Summary, less the duration and rates.
func (t *tally) summary() Summary {
	return Summary{Requested: t.requested, Completed: t.completed, Failed: t.requested - t.completed, Failures: maps.Clone(t.failures),
		InputTokens: t.inTokens, OutputTokens: t.outTokens,
		TTFT: t.ttft.dist(), TPOT: t.tpot.dist(), ITL: t.itl.dist(), E2E: t.e2e.dist(),
		Sketched: t.ttft.sketched() || t.tpot.sketched() || t.itl.sketched() || t.e2e.sketched()}
}

var errNoLines = errors.New("the run was told no per-request file would be written (Options.NoPerRequest): its lines were not kept")

// writeLines puts the per-request lines at path: the file they were
// streamed to, committed, or a copy of their spool.
func (t *tally) writeLines(path string, copyTo func(io.Reader) error) error {
	switch {
	case t.err != nil:
		return t.err
	case t.lines == nil:
		return errNoLines
	}
	if t.lines.af != nil && t.lines.path == path {
		return t.lines.commit()
	}
	r, err := t.lines.reader()
	if err != nil {
		return err
	}
	return copyTo(r)
}

// arrayReader reads the values of the record's array i back, each after
// its separator.
func (t *tally) arrayReader(i int) (io.Reader, error) {
	if t.err != nil {
		return nil, t.err
	}
	return t.arrays[i].reader()
}

func (t *tally) close() {
	for _, s := range append([]*spool{t.lines}, t.arrays[:]...) {
		if s != nil {
			s.close()
		}
	}
}
