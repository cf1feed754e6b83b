package reason

import (
	"fmt"
	"slices"
)

// stopping are the codes of a run that was stopped (or never got going)
// before its measurement could finish: what the run then failed to
// produce follows from them.
var stopping = map[Code]bool{
	ArmEnvMissing: true, ArmEnvLeak: true, ArmModeMismatch: true, RankMissing: true, BuildMismatch: true,
	LaunchFailed: true, RankExited: true, DeadlineExceeded: true, Interrupted: true, ControllerFailed: true,
	SetupFailed:   true,
	ImageMismatch: true,
}

// consequences are the codes that, in a stopped run, only report what it
// did not produce: no client ran, so no requests, no record, no digests,
// no complete lifecycle, no GPU samples or metrics scrapes of its
// measured phase, and ranks that abbench stopped on purpose.
var consequences = map[Code]bool{
	RequestsFailed: true, ThroughputInvalid: true, DigestMissing: true, PhaseIncomplete: true,
	FactCount: true, UncleanShutdown: true, DigestRankDisagreement: true,
	TelemetryMissing: true, ServerMetric: true,
}

// beforeRoles are the codes of a run stopped before any role started: its
// ranks missing and their modes unmeasured only follow from it.
var beforeRoles = map[Code]bool{SetupFailed: true}

// rolesNeverRan are the codes that, in a run stopped before its roles,
// only say its ranks never ran.
var rolesNeverRan = map[Code]bool{RankMissing: true, ArmModeMismatch: true}

// served are the codes that, in a run whose client had not one request
// served, only say what serving would have left: besides a stopped run's
// consequences, the prompts the ranks served (none) against those sent.
var served = map[Code]bool{WorkloadMismatch: true}

// absent says r only reports what a rank never did: logged a mode
// (Unmeasured), registered (rank-missing). A stop of its own where nothing
// else stopped the run, it follows from a stop that did: a rank abbench
// stopped, or that never started, logs no mode.
func absent(r Reason) bool { return r.Unmeasured || r.Code == RankMissing }

// Group orders one run's reasons root causes first. When the run was
// stopped (a stopping code is among them), its first stopping reason comes
// first (one that says what a rank did, before one that says what a rank
// never did) and the reasons that only say what the run then failed to
// produce become its Consequences; a rank that never registered is one,
// but where a deadline passed waiting for it: then that rank is the root
// and the deadline follows. A run that was not stopped
// but had not one request served (NothingServed) is grouped the same way
// under that reason. A reason with the code, arm, role and rank of one
// already kept is the same fact in other words: it is dropped and counted
// in that one's Repeats. The other root causes keep their order.
func Group(rs []Reason) []Reason {
	isRoot, follows := rootOf(rs)
	noRoles := slices.ContainsFunc(rs, func(r Reason) bool { return beforeRoles[r.Code] })
	var roots, cons []Reason
	index := map[string]int{}
	seenCons := map[string]bool{}
	for _, r := range rs {
		k := fmt.Sprintf("%s|%s|%s|%s", r.Code, r.Arm, r.Role, rankKey(r.Rank))
		if follows(r) || noRoles && rolesNeverRan[r.Code] {
			if !seenCons[k] {
				seenCons[k] = true
				cons = append(cons, r)
			}
			continue
		}
		if i, dup := index[k]; dup {
			roots[i].Repeats++
			continue
		}
		index[k] = len(roots)
		roots = append(roots, r)
	}
	i := slices.IndexFunc(roots, isRoot)
	if i < 0 {
		return roots
	}
	root := roots[i]
	root.Consequences = cons
	return append(append([]Reason{root}, roots[:i]...), roots[i+1:]...)
}

// rootOf says which reason of rs is the run's root cause (the first that
// isRoot) and which follow from it; neither, where nothing stopped the run
// and something was served.
func rootOf(rs []Reason) (isRoot, follows func(Reason) bool) {
	never := func(Reason) bool { return false }
	cause := func(r Reason) bool { return stopping[r.Code] && !absent(r) }
	switch {
	case slices.ContainsFunc(rs, func(r Reason) bool { return r.Code == Interrupted }):
		// Someone stopped the run (Ctrl-C, SIGTERM): that is the root,
		// and its controller's exit one of its consequences, not a failure
		// to fix before it; a stop of another kind stays a cause.
		return func(r Reason) bool { return r.Code == Interrupted }, func(r Reason) bool {
			return consequences[r.Code] || r.Unmeasured || r.Code == RankMissing || r.Code == ControllerFailed
		}
	case slices.ContainsFunc(rs, cause):
		missing := func(r Reason) bool { return r.Code == RankMissing }
		if rs[slices.IndexFunc(rs, cause)].Code == DeadlineExceeded && slices.ContainsFunc(rs, missing) {
			// The deadline passed waiting for ranks that never registered:
			// a missing rank (what kept it, an unschedulable pod say) is
			// the root, the deadline and what it stopped follow from it,
			// and each other missing rank stays a cause of its own.
			return missing, func(r Reason) bool {
				return consequences[r.Code] || r.Unmeasured || r.Code == DeadlineExceeded
			}
		}
		return cause, func(r Reason) bool {
			return consequences[r.Code] || r.Unmeasured || r.Code == RankMissing
		}
	case slices.ContainsFunc(rs, func(r Reason) bool { return stopping[r.Code] }):
		return func(r Reason) bool { return stopping[r.Code] }, func(r Reason) bool { return consequences[r.Code] }
	case slices.ContainsFunc(rs, func(r Reason) bool { return r.NothingServed }):
		return func(r Reason) bool { return r.NothingServed }, func(r Reason) bool {
			return !r.NothingServed && (consequences[r.Code] || served[r.Code])
		}
	}
	return never, never
}

func rankKey(rank *int) string {
	if rank == nil {
		return "-"
	}
	return fmt.Sprint(*rank)
}

// Merge makes one reason of each fact found in several runs: reasons of
// the same code, arm, role, rank and detail (each run's own, with its run
// in Runs) become the first of them, its Runs every run's, its Repeats
// their sum and its Consequences each distinct one once (their runs
// merged too). A comparison of ten runs that all failed one way then
// says so once, naming the runs, rather than ten times. Order is kept.
func Merge(rs []Reason) []Reason {
	out := make([]Reason, 0, len(rs)) // none is an empty list, as a comparison's JSON says it
	index := map[string]int{}
	for _, r := range rs {
		k := r.fact()
		i, seen := index[k]
		if !seen {
			index[k] = len(out)
			r.Runs = slices.Clone(r.Runs)
			r.Consequences = Merge(r.Consequences)
			out = append(out, r)
			continue
		}
		m := &out[i]
		for _, run := range r.Runs {
			if !slices.Contains(m.Runs, run) {
				m.Runs = append(m.Runs, run)
			}
		}
		m.Repeats += r.Repeats
		m.Consequences = Merge(append(m.Consequences, r.Consequences...))
	}
	return out
}

// fact is what makes two reasons the same fact: all but where it was
// found and how often.
func (r Reason) fact() string {
	return fmt.Sprintf("%s|%s|%s|%s|%s", r.Code, r.Arm, r.Role, rankKey(r.Rank), r.Detail)
}
