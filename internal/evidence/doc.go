// Package evidence turns an arm run's directory into evidence.json: facts
// read from each rank's log scope and the client's throughput record, and
// the scenario's acceptance criteria evaluated on them, each failure with a
// censor reason code. It never trusts anyone's reading of the logs: replay
// re-derives the same evidence from the same bytes.
//
// The rules:
//   - a log is read from the byte offset recorded before its rank started,
//     with a seek; a log now shorter than its offset, or replaced, is
//     stale-evidence;
//   - within a role's scoped logs, the first complete set of lifecycle-end
//     lines (every expected rank) ends the profiling lifecycle, and the first
//     complete mode set after it starts the measured one, which ends at each
//     rank's next lifecycle-end line; an incomplete set is phase-incomplete,
//     naming the ranks; a further lifecycle after the measured one means the
//     scope holds another attempt: stale-evidence;
//   - facts (mode, activation digest, counters, named facts) come from the
//     measured lifecycle only;
//   - a throughput record counts only if its format is known, it parses, all
//     requests succeeded and it carries its validity flag.
//
// Where each job is: evidence.go the schema and Collect; scope.go and
// blocks.go a scope and its reading in blocks of whole lines; match.go the
// literal/anchor prefilter and line matching; byteset.go the one pass for
// the anchor bytes (byteset_amd64.s with AVX2); lifecycle.go one rank's
// lifecycle phases, a line at a time; scan.go and parts.go the reading of
// every rank (a large scope in parts, on several cores); complete.go the
// cross-rank phase rule; facts.go the rules of a role and the facts they
// take; throughput.go the record (parsed by package records); criteria.go
// the acceptance criteria.
package evidence
