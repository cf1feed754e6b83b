//go:build !linux

package rankwrap

import "errors"

// keepParentDeathSignal refuses: only Linux has a parent-death signal, and
// without it a killed controller would leave the rank running. A rank is
// never started where it cannot be stopped with its controller.
func keepParentDeathSignal() error {
	return errors.New("rank wrapper: runs need Linux (a rank's parent-death signal, prctl PR_SET_PDEATHSIG, exists only there)")
}
