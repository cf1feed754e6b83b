package compare

import (
	"errors"
	"fmt"
	"strings"

	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/reason"
)

// ErrNotBundle is the failure of a run whose signature was to be checked
// but that is no bundle: nothing in it is signed.
var ErrNotBundle = fmt.Errorf("not a bundle (no %s), so not signed", bundle.ManifestFile)

// ErrStoredEmpty is the failure of a stored baseline that holds no run.
var ErrStoredEmpty = errors.New("it holds no run")

// Refusal is one run that a verification step (VerifyRuns, CheckStored)
// refused: the reason code CI keys on, the run as the user named it, and
// the failure, a *bundle.VerifyError where its bundle did not verify,
// ErrNotBundle where it is none.
type Refusal struct {
	Code reason.Code // "" where no code applies (an archive refused whole)
	Run  string
	Err  error
}

func (r *Refusal) Error() string {
	if r.Code == "" {
		return r.Err.Error()
	}
	return fmt.Sprintf("%s: %s", r.Code, r.Err)
}

func (r *Refusal) Unwrap() error { return r.Err }

// RunsRefused is every run VerifyRuns refused.
type RunsRefused struct{ Refusals []*Refusal }

func (e *RunsRefused) Error() string {
	return fmt.Sprintf("%d run(s) refused:\n%s", len(e.Refusals), joinRefusals(e.Refusals))
}

func (e *RunsRefused) Unwrap() []error { return refusalErrors(e.Refusals) }

// StoredRefused is a stored baseline CheckStored (or its signatures)
// refused.
type StoredRefused struct {
	Path     string
	Refusals []*Refusal
}

func (e *StoredRefused) Error() string {
	return fmt.Sprintf("the stored baseline %s is refused:\n%s", e.Path, joinRefusals(e.Refusals))
}

func (e *StoredRefused) Unwrap() []error { return refusalErrors(e.Refusals) }

// joinRefusals says each refusal on a line of its own.
func joinRefusals(rs []*Refusal) string {
	lines := make([]string, len(rs))
	for i, r := range rs {
		lines[i] = r.Error()
	}
	return strings.Join(lines, "\n")
}

func refusalErrors(rs []*Refusal) []error {
	errs := make([]error, len(rs))
	for i, r := range rs {
		errs[i] = r
	}
	return errs
}

// asGiven is an error about a run's directory said of the path the user
// gave for it: an unpacked archive's temporary directory means nothing to
// them. Unwrap keeps the error itself.
type asGiven struct {
	err       error
	dir, path string
}

func (e asGiven) Error() string {
	if e.dir == "" {
		return e.err.Error()
	}
	return strings.ReplaceAll(e.err.Error(), e.dir, e.path)
}

func (e asGiven) Unwrap() error { return e.err }
