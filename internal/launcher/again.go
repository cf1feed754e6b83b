package launcher

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// MakeDir makes spec.Dir for Start: a new directory, or with spec.Again
// the existing directory of the run's earlier attempts (a directory,
// never a link to one elsewhere).
func MakeDir(spec Spec) error {
	if err := os.MkdirAll(filepath.Dir(spec.Dir), 0o755); err != nil {
		return err
	}
	if !spec.Again {
		return os.Mkdir(spec.Dir, 0o755)
	}
	fi, err := os.Lstat(spec.Dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s: another attempt of the run needs the directory of its earlier ones, and it is gone", spec.Dir)
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory (%s): a run's attempts live in a directory of their own", spec.Dir, fi.Mode().Type())
	}
	return nil
}

// RemoveMade removes what MakeDir made once Start failed: a new
// directory, and nothing of a run's earlier attempts.
func RemoveMade(spec Spec) {
	if !spec.Again {
		// What a failed removal leaves is an empty run directory the
		// error that follows names.
		_ = os.RemoveAll(spec.Dir)
	}
}

// Attacher is a launcher whose allocations outlive the abbench run that
// started them (a Slurm job goes on when its submitter dies): Attach
// finds the allocation a run was given earlier, as plan.json records it,
// while it is still queued or running, and returns it as Start would
// have. It returns nil when the allocation ended, is unknown, or is not
// spec's: the run's files then say how it went.
type Attacher interface {
	Attach(spec Spec, allocation string) (Run, error)
}

// Checker is a launcher that can tell, before a campaign writes anything,
// whether its runs could start at all (its account's rights on a
// cluster): Check's error says what is missing.
type Checker interface {
	Check(ctx context.Context) error
}
