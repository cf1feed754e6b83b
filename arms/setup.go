package arms

import (
	"fmt"
	"os"

	"github.com/abbench/abbench/rundir"
	"github.com/abbench/abbench/scenarios"
)

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// makeScratch creates the run's scratch directory: the controller's own
// (0700), unless a role runs as another user (user:): then every rank must
// be able to write there, as in /tmp (1777: anyone may create, only the
// owner may remove). Running a role as another user needs root.
func makeScratch(s *scenarios.Scenario, token string) error {
	dir, mode := rundir.Scratch(token), os.FileMode(0o700)
	for _, r := range s.Roles {
		if r.User == "" {
			continue
		}
		if os.Geteuid() != 0 {
			return fmt.Errorf("role %s runs as user %s: abbench must run as root to start a rank as another user", r.Name, r.User)
		}
		mode = 0o777 | os.ModeSticky
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("scratch directory: %w", err)
	}
	return os.Chmod(dir, mode)
}
