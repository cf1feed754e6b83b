package guarded

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/abbench/abbench/internal/readonly"
)

// PrivateDir opens dir as a directory only this user may write, creating
// it (mode 0700) when it is missing. It must be a directory itself, not a
// symbolic link, owned by this user, and writable by neither its group nor
// others: a directory another user made, or may write, could hold files
// planted for abbench to act on. Anything else is refused, naming the
// directory and the fix. The checks are made on the directory opened, so
// one swapped in after them is never used.
func PrivateDir(dir string) (*os.Root, error) {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	named, err := os.Lstat(dir)
	if err != nil {
		return nil, err
	}
	if err := private(dir, named); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	opened, err := root.Stat(".")
	if err == nil && !os.SameFile(named, opened) {
		err = fmt.Errorf("%s was replaced while abbench checked it: run again, and find who replaces it", dir)
	}
	if err == nil {
		err = private(dir, opened)
	}
	if err != nil {
		readonly.Close(root)
		return nil, err
	}
	return root, nil
}

// private says what makes fi, the directory dir, not private to this user.
func private(dir string, fi fs.FileInfo) error {
	uid := os.Geteuid()
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link, not a directory of this user's: remove it (rm %s)", dir, dir)
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory: remove it (rm %s)", dir, dir)
	case Owner(fi) != uid:
		return fmt.Errorf("%s is owned by uid %d, not by this user (uid %d): another user may have made it to plant files there; remove it (its owner or root can: rm -r %s)", dir, Owner(fi), uid, dir)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s is writable by its group or others (mode %04o): another user could plant files there; make it private (chmod 700 %s)", dir, fi.Mode().Perm(), dir)
	}
	return nil
}
