package bundle

import (
	"errors"
	"fmt"
	"io"

	"github.com/abbench/abbench/internal/rundir"
)

// Check is the outcome of verifying one bundle path (abbench verify).
type Check struct {
	Bundle   string `json:"bundle"`
	OK       bool   `json:"ok"`
	Signer   string `json:"signer,omitempty"`
	Key      string `json:"key,omitempty"` // Verified.Key
	Unsigned bool   `json:"unsigned"`
	DSSE     bool   `json:"dsse"` // the DSSE envelope verified too
	Arm      string `json:"arm,omitempty"`
	Accepted bool   `json:"evidence_accepted"`
	Error    string `json:"error,omitempty"`
	// Step and File say where a failed check failed: the verification
	// step (Step) and the bundle's file it names, when it names one.
	Step Step   `json:"step,omitempty"`
	File string `json:"file,omitempty"`
	// NotRun says why a campaign's planned run that never ran passes
	// (OK, with no bundle to check): its campaign stopped by its rule.
	NotRun string `json:"not_run,omitempty"`
	// NeverRan marks a failed check of a campaign's planned run that never
	// started (interrupted, or stopped early by a failed run): missing, not
	// altered, which a resume mends.
	NeverRan bool `json:"never_ran,omitempty"`
	// OlderRules says the bundle's evidence was derived by older evidence
	// rules, which this abbench's judge alike (Verified.OlderRules).
	OlderRules string `json:"older_rules,omitempty"`
	// Pod is the Kubernetes pod the run ran in (machine.Pod.Describe), or
	// why a run under Kubernetes has no facts of it; "" for other runs.
	Pod string `json:"pod,omitempty"`
	// Campaign is what the verified bundle's provenance says of its
	// campaign (nil outside one, or for a failed check): a caller that
	// verifies several runs holds them to one run per plan index.
	Campaign *rundir.CampaignRef `json:"-"`
}

// CheckSchema names abbench verify --format json's output.
const CheckSchema = "abbench-verify-v1"

// CheckReport is abbench verify --format json: every path's Check.
type CheckReport struct {
	Schema string  `json:"schema"` // CheckSchema
	Checks []Check `json:"checks"`
}

// CheckAll verifies every path (a directory or an archive) with opts and
// returns one Check each, and how many failed.
func CheckAll(paths []string, opts VerifyOptions) (checks []Check, failed int) {
	for _, p := range paths {
		v, err := VerifyPath(p, opts)
		c := NewCheck(p, v, err)
		if !c.OK {
			failed++
		}
		checks = append(checks, c)
	}
	return checks, failed
}

// NewCheck is the Check of the bundle at path, as a verification of it
// ended: v when it passed, else err.
func NewCheck(path string, v *Verified, err error) Check {
	c := Check{Bundle: path}
	if err != nil {
		c.Error = err.Error()
		var ve *VerifyError
		if errors.As(err, &ve) {
			c.Step, c.File = ve.Step, ve.File
		}
		c.Unsigned = errors.Is(err, ErrUnsigned)
		return c
	}
	c.OK, c.Signer, c.Key, c.Unsigned, c.DSSE, c.Arm, c.Accepted, c.OlderRules = true, v.Signer, v.Key, v.Unsigned, v.DSSE, v.Evidence.Arm, v.Evidence.Accepted, v.OlderRules
	c.Pod = podLine(v.Provenance)
	if v.Provenance != nil {
		c.Campaign = v.Provenance.Campaign
	}
	return c
}

// WriteChecks prints one line per check: FAIL and why, or ok with the
// signer (or UNSIGNED), the arm, whether its evidence was accepted and the
// signing key's fingerprint (an envelope names no key: abbench does), and
// under Kubernetes a line naming the run's pod (or why its facts are missing).
// Planned runs a campaign did not need share one line.
func WriteChecks(w io.Writer, checks []Check) error {
	for i := 0; i < len(checks); i++ {
		c := checks[i]
		var err error
		switch {
		case !c.OK:
			_, err = fmt.Fprintf(w, "FAIL %s\n", c.Error)
		case c.NotRun != "":
			j := i
			for j+1 < len(checks) && checks[j+1].OK && checks[j+1].NotRun == c.NotRun {
				j++
			}
			which := c.Bundle
			if j > i {
				which = fmt.Sprintf("%d runs, %s to %s", j-i+1, c.Bundle, checks[j].Bundle)
			}
			_, err = fmt.Fprintf(w, "skip %s: %s\n", which, c.NotRun)
			i = j
		case c.Unsigned:
			_, err = fmt.Fprintf(w, "ok   %s: UNSIGNED (accepted by --allow-unsigned); arm %s, evidence accepted: %v\n", c.Bundle, c.Arm, c.Accepted)
		default:
			how := "SSHSIG and DSSE"
			if !c.DSSE {
				how = "SSHSIG only: made before abbench wrote DSSE envelopes"
			}
			_, err = fmt.Fprintf(w, "ok   %s: signed by %s (%s); arm %s, evidence accepted: %v; key %s\n", c.Bundle, c.Signer, how, c.Arm, c.Accepted, c.Key)
		}
		if err == nil && c.OlderRules != "" {
			_, err = fmt.Fprintf(w, "     %s: evidence %s\n", c.Bundle, c.OlderRules)
		}
		if err == nil && c.Pod != "" {
			_, err = fmt.Fprintf(w, "     %s: %s\n", c.Bundle, c.Pod)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// podLine is Check.Pod of a bundle's provenance.
func podLine(prov *Provenance) string {
	switch {
	case prov == nil:
		return ""
	case prov.Pod != nil && prov.PodNodesUnread != "":
		return prov.Pod.Describe() + "; node facts missing: " + prov.PodNodesUnread
	case prov.Pod != nil:
		return prov.Pod.Describe()
	case prov.PodMissing() != "":
		return "pod facts missing: " + prov.PodMissing()
	}
	return ""
}
