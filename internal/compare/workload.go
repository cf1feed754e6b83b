package compare

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/readonly"
	"github.com/abbench/abbench/internal/reason"
)

// workloads requires one workload digest, of one pinned algorithm, across
// every run, and explains a difference with the per-prompt records.
func (g *gate) workloads() {
	var ref *Run
	for i := range g.runs {
		run := &g.runs[i]
		w := run.Evidence.Workload
		if !run.Evidence.Accepted && (w == nil || w.Count == 0) {
			continue // a run stopped before serving: its own reasons say why
		}
		if w == nil {
			if hasActivation(run.Evidence) {
				g.add(reason.New(reason.DigestMissing, "run %s (arm %s) has no agreed workload digest", run.Path, run.Evidence.Arm))
			}
			continue
		}
		if !w.Algorithm.Valid() {
			g.add(reason.New(reason.DigestAlgorithm, "run %s uses unknown digest algorithm %q", run.Path, w.Algorithm))
			continue
		}
		if ref == nil {
			ref = run
			g.r.Workload = w
			continue
		}
		rw := ref.Evidence.Workload
		switch {
		case w.Algorithm != rw.Algorithm:
			g.add(reason.New(reason.DigestAlgorithm, "run %s hashed its workload with %s, run %s with %s: digests of different algorithms are never compared",
				run.Path, w.Algorithm, ref.Path, rw.Algorithm))
		case *w != *rw:
			code := reason.DigestArmMismatch
			if run.Evidence.Arm == ref.Evidence.Arm {
				code = reason.DigestRankDisagreement
			}
			// The first run first, as explain names it A: the list and
			// the explanation read in one order.
			g.add(reason.New(code, "arm %s (run %s) served workload %s:%d:%s, arm %s (run %s) %s:%d:%s; %s",
				ref.Evidence.Arm, ref.Path, rw.Algorithm, rw.Count, short(rw.Hex), run.Evidence.Arm, run.Path, w.Algorithm, w.Count, short(w.Hex), explain(ref, run)))
		}
	}
	g.sweeps()
}

// sweeps requires every accepted run's record to have swept what the
// first one's did (nccl-tests' message sizes): for a tool that sweeps,
// the sweep is the matched workload, and other sizes average to another
// bus bandwidth whatever either arm changed. A run whose record lists no
// sweep beside one that does (evidence derived before records listed
// theirs) cannot be shown to have run the same sweep.
func (g *gate) sweeps() {
	var ref *Run
	for i := range g.runs {
		run := &g.runs[i]
		if !run.Evidence.Accepted || run.Evidence.Throughput == nil {
			continue // a censored run's own reasons say why
		}
		if ref == nil {
			ref = run
			continue
		}
		s, rs := run.Evidence.Throughput.Sweep, ref.Evidence.Throughput.Sweep
		if slices.Equal(s, rs) {
			continue
		}
		g.add(reason.New(reason.DigestArmMismatch, "arm %s (run %s) swept %s, arm %s (run %s) %s: the sweep is the matched workload (run both arms with the same -b, -e, -f or -i)",
			run.Evidence.Arm, run.Path, sweepText(s, rs), ref.Evidence.Arm, ref.Path, sweepText(rs, s)))
	}
}

// sweepText says what sweep s holds, and where it first differs from
// other.
func sweepText(s, other []uint64) string {
	if len(s) == 0 {
		return "no sizes its record lists (derived by older evidence rules: run it again)"
	}
	text := fmt.Sprintf("%d sizes from %d B to %d B", len(s), s[0], s[len(s)-1])
	for i, v := range s {
		if i >= len(other) || other[i] != v {
			return fmt.Sprintf("%s (size %d: %d B)", text, i+1, v)
		}
	}
	return text
}

func hasActivation(e *evidence.Evidence) bool {
	for _, f := range e.Ranks {
		if f.Activation != nil {
			return true
		}
	}
	for _, c := range e.Criteria {
		if c.Kind == "digest" {
			return true
		}
	}
	return false
}

// explain compares the runs' per-prompt records, when both kept them.
func explain(a, b *Run) string {
	ra, pa := records(a)
	rb, pb := records(b)
	if ra == nil || rb == nil {
		if namesActivationRecords(a.Dir) || namesActivationRecords(b.Dir) {
			// Named, and still none: the ranks wrote none (they served
			// nothing, or stopped first), which the run's own reasons say.
			return "no per-prompt records to explain the difference: the scenario names evidence.activation.records, and a run left none (did its ranks serve any request?)"
		}
		return "no per-prompt records to explain the difference (name evidence.activation.records in the scenario)"
	}
	e := digest.Explain(ra, rb)
	return fmt.Sprintf("%s (A = %s, B = %s)", e, pa, pb)
}

func records(run *Run) ([]digest.Record, string) {
	for _, f := range run.Evidence.Ranks {
		if f.ActivationRecords == "" {
			continue
		}
		path := filepath.Join(run.Dir, f.ActivationRecords)
		file, err := os.Open(path)
		if err != nil {
			continue
		}
		d, recs, err := digest.ReadRecords(file, path)
		readonly.Close(file)
		if err != nil || run.Evidence.Workload == nil || d != *run.Evidence.Workload {
			continue // records that do not reproduce the agreed digest explain nothing
		}
		return recs, fmt.Sprintf("%s %s rank %d", run.Evidence.Arm, f.Role, f.Rank)
	}
	return nil, ""
}
