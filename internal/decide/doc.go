// Package decide turns two arms' values of one metric into a verdict that
// holds at the run counts GPU campaigns afford: improved or regressed only
// when a test says so at the chosen level and the estimated change reaches
// the smallest effect of interest; no-change when the whole interval lies
// within that effect; inconclusive otherwise; descriptive with one run per
// arm. It knows nothing of runs, files or scenarios: numbers in, decision
// out, so the validation suite (Validate) exercises exactly what compare
// uses.
//
// Every analysis is of log ratios, so a change is a percentage whichever
// arm is larger, and intervals are t-intervals (paired, or Welch's for
// unpaired runs): a percentile bootstrap covers far less than it claims
// at two or three runs per arm. docs/statistics.md gives the rules, the
// validation table and the references.
package decide
