package bundle

import (
	"fmt"
	"io"
)

// Check is the outcome of verifying one bundle path (abbench verify).
type Check struct {
	Bundle   string `json:"bundle"`
	OK       bool   `json:"ok"`
	Signer   string `json:"signer,omitempty"`
	Unsigned bool   `json:"unsigned"`
	DSSE     bool   `json:"dsse"` // the DSSE envelope verified too
	Arm      string `json:"arm,omitempty"`
	Accepted bool   `json:"evidence_accepted"`
	Error    string `json:"error,omitempty"`
}

// CheckAll verifies every path (a directory or an archive) with opts and
// returns one Check each, and how many failed.
func CheckAll(paths []string, opts VerifyOptions) (checks []Check, failed int) {
	for _, p := range paths {
		c := Check{Bundle: p}
		if v, err := VerifyPath(p, opts); err != nil {
			c.Error = err.Error()
			failed++
		} else {
			c.OK, c.Signer, c.Unsigned, c.DSSE, c.Arm, c.Accepted = true, v.Signer, v.Unsigned, v.DSSE, v.Evidence.Arm, v.Evidence.Accepted
		}
		checks = append(checks, c)
	}
	return checks, failed
}

// WriteChecks prints one line per check: FAIL and why, or ok with the
// signer (or UNSIGNED), the arm and whether its evidence was accepted.
func WriteChecks(w io.Writer, checks []Check) error {
	for _, c := range checks {
		var err error
		switch {
		case !c.OK:
			_, err = fmt.Fprintf(w, "FAIL %s\n", c.Error)
		case c.Unsigned:
			_, err = fmt.Fprintf(w, "ok   %s: UNSIGNED (accepted by --allow-unsigned); arm %s, evidence accepted: %v\n", c.Bundle, c.Arm, c.Accepted)
		default:
			how := "SSHSIG and DSSE"
			if !c.DSSE {
				how = "SSHSIG only: made before abbench wrote DSSE envelopes"
			}
			_, err = fmt.Fprintf(w, "ok   %s: signed by %s (%s); arm %s, evidence accepted: %v\n", c.Bundle, c.Signer, how, c.Arm, c.Accepted)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
