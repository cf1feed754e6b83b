package compare

import (
	"fmt"
	"strings"

	"github.com/abbench/abbench/evidence/bundle"
	"github.com/abbench/abbench/reason"
)

// VerifyRuns checks every run's bundle against opts and returns one line
// per refused run: a run that is not a bundle is not signed, so refused.
func VerifyRuns(runs []Run, opts bundle.VerifyOptions) []string {
	var refused []string
	for _, run := range runs {
		if !run.IsBundle() {
			refused = append(refused, fmt.Sprintf("%s: %s: not a bundle (no %s), so not signed", reason.SignatureInvalid, run.Path, bundle.ManifestFile))
			continue
		}
		if _, err := bundle.Verify(run.Dir, opts); err != nil {
			refused = append(refused, fmt.Sprintf("%s: %s", reason.SignatureInvalid, strings.ReplaceAll(err.Error(), run.Dir, run.Path)))
		}
	}
	return refused
}
