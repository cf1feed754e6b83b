package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/field"
)

// The --fail-on conditions. Each names verdicts that fail a CI gate (exit
// 5) although the evidence was accepted.
const (
	// FailRegression fails a regressed verdict (or an arm that regressed
	// against a stored baseline).
	FailRegression = "regression"
	// FailInconclusive fails anything but improved.
	FailInconclusive = "inconclusive"
	// FailUndecided fails a comparison no test decided: descriptive (one
	// run per arm) or inconclusive.
	FailUndecided = "undecided"
)

// FailConditions are the --fail-on choices, in the order help lists them.
var FailConditions = []string{FailRegression, FailInconclusive, FailUndecided}

// ParseFailOn reads --fail-on: one condition or several, comma-separated.
func ParseFailOn(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	var conds []string
	for _, c := range strings.Split(s, ",") {
		c = strings.TrimSpace(c)
		if !slices.Contains(FailConditions, c) {
			return nil, &field.Error{Field: "FailOn", Value: fmt.Sprintf("%q", s), Problem: "choose " + strings.Join(FailConditions, ", ") + ", or several comma-separated"}
		}
		conds = append(conds, c)
	}
	return conds, nil
}

// undecided says whether no test decided the comparison.
func (r *Result) undecided() bool {
	return r.Verdict == Descriptive || r.Verdict == Inconclusive
}

// FailsOn says which of the --fail-on conditions (as ParseFailOn reads
// them) the accepted comparison meets, "" for none. A censored comparison
// meets none: it fails by being censored (exit 3).
func (r *Result) FailsOn(failOn string) string {
	conds, _ := ParseFailOn(failOn)
	if r.Verdict == Censored {
		return ""
	}
	for _, c := range conds {
		switch {
		case c == FailRegression && (r.Verdict == Regressed || r.StoredRegressed()),
			c == FailInconclusive && r.Verdict != Improved,
			c == FailUndecided && r.undecided():
			return c
		}
	}
	return ""
}

// gateWarning is what a CI gate must hear when --fail-on regression can
// neither pass nor fail the comparison because no test decided it: such a
// gate would pass a regression of any size. Empty when the gate decides.
func (r *Result) gateWarning(failOn string) string {
	conds, _ := ParseFailOn(failOn)
	if !slices.Contains(conds, FailRegression) || slices.Contains(conds, FailUndecided) || slices.Contains(conds, FailInconclusive) || !r.undecided() {
		return ""
	}
	why := "no test decided it (inconclusive): a regression within its interval would pass"
	if r.Verdict == Descriptive {
		why = "it is descriptive (one run per arm): no test can tell a regression of any size from noise"
	}
	return fmt.Sprintf("--fail-on regression cannot gate this comparison: %s; run more pairs (abbench plan --repeat N, one stage per run), or add --fail-on undecided to fail it", why)
}
