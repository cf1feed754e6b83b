package rankwrap

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Install copies the running wrapper, a static executable, into dir under
// its own name: an init container of abbench's image runs it into a
// volume it shares with a rank container of any other image, which then
// starts its rank through the copy (ExecInImage). The copy is written
// beside its name and renamed, so a rank never runs half a file.
func Install(dir string) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("rank wrapper: --install: %w", err)
	}
	in, err := os.Open(self)
	if err != nil {
		return fmt.Errorf("rank wrapper: --install: %w", err)
	}
	defer func() { _ = in.Close() }() // read only
	dst := filepath.Join(dir, filepath.Base(self))
	out, err := os.OpenFile(dst+".part", os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return fmt.Errorf("rank wrapper: --install: %w", err)
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(dst+".part", dst)
	}
	if err != nil {
		return fmt.Errorf("rank wrapper: --install %s: %w", dir, err)
	}
	return nil
}

// ExecInImage is the wrapper of a rank pod of a role's own image, its
// rank the Job's completion index: the image's environment comes first
// (its PATH, its libraries' variables), without any arm key, then the
// launch file's, so the arm's values win, as for a rank in a container.
func ExecInImage(dir, role string) error {
	rank, err := launchedRank()
	if err != nil {
		return err
	}
	return execLaunch(dir, role, rank, os.Environ(), true)
}
