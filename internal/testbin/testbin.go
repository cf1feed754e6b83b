// Package testbin builds the module's programs for tests into a directory
// kept between test runs, so that go build's own up-to-date check leaves a
// binary whose sources did not change as it is: a test that built its
// programs into a fresh temporary directory linked each of them on every
// run (a second or more of CPU a program), which made most of the cost of
// a quick go test -short ./... loop.
package testbin

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// LockWait bounds the wait for another process's build of the same
// directory: a cold build of the largest program on a loaded machine takes
// a minute or two, never ten.
const LockWait = 10 * time.Minute

// Build builds each package directory of pkgs (from its own directory, so
// from its own module) with go build's extra flags, and env added to this
// process's environment, into one directory and returns it. The same
// package directories, flags, env and GOFLAGS always name the same
// directory, under the user's cache directory (a fresh temporary one where
// there is none). Builds of one directory take turns across processes
// (a lock file), so no test runs a binary another build is still writing.
func Build(env, flags []string, pkgs ...string) (string, error) {
	abs := make([]string, len(pkgs))
	for i, p := range pkgs {
		a, err := filepath.Abs(p)
		if err != nil {
			return "", err
		}
		abs[i] = a
	}
	dir, err := dirFor(env, flags, abs)
	if err != nil {
		return "", err
	}
	unlock, err := lock(filepath.Join(dir, lockName), LockWait)
	if err != nil {
		return "", err
	}
	defer unlock()
	for _, p := range abs {
		args := append(append([]string{"build"}, flags...), "-o", dir+string(filepath.Separator), ".")
		cmd := exec.Command("go", args...)
		cmd.Dir = p
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build of %s: %v: %s", p, err, out)
		}
	}
	return dir, nil
}

// BuildInto is Build, then every binary it built put into dst,
// hard-linked where it can be (copied otherwise): dst is the caller's to
// write to, the build's directory is not.
func BuildInto(dst string, env, flags []string, pkgs ...string) error {
	dir, err := Build(env, flags, pkgs...)
	if err != nil {
		return err
	}
	if temporary(dir) {
		// A fresh directory is BuildInto's alone: nothing of it is kept.
		defer func() { _ = os.RemoveAll(dir) }()
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() == lockName || e.IsDir() {
			continue
		}
		if err := linkOrCopy(filepath.Join(dir, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// linkOrCopy makes dst the file src: a hard link, or a copy across file
// systems. A later build that replaces src leaves dst as it was.
func linkOrCopy(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }() // read only: its close says nothing
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	return out.Close()
}

// lockName is the lock file of a build's directory, beside its binaries.
const lockName = ".lock"

// tempPrefix starts the name of a build directory made fresh.
const tempPrefix = "abbench-testbin"

// temporary says whether dir is a build directory made fresh, not kept.
func temporary(dir string) bool {
	return filepath.Dir(dir) == filepath.Clean(os.TempDir()) && strings.HasPrefix(filepath.Base(dir), tempPrefix)
}

// dirFor is the directory of a build: a digest of everything that makes
// the binaries differ, so two builds never write each other's directory.
// A package directory under the temporary directory (a test's own
// program) changes with each run: it is built into a fresh directory, as
// keeping it would only add a directory every run.
func dirFor(env, flags, abs []string) (string, error) {
	for _, p := range abs {
		if rel, err := filepath.Rel(os.TempDir(), p); err == nil && filepath.IsLocal(rel) {
			return os.MkdirTemp("", tempPrefix)
		}
	}
	h := sha256.New()
	for _, part := range [][]string{abs, flags, env, {os.Getenv("GOFLAGS")}} {
		for _, s := range part {
			_, _ = fmt.Fprintf(h, "%q\n", s) // a hash never fails a write
		}
		h.Write([]byte{0})
	}
	base, err := os.UserCacheDir()
	if err != nil {
		// No cache directory (no HOME): a fresh directory, linked every run.
		return os.MkdirTemp("", tempPrefix)
	}
	dir := filepath.Join(base, "abbench-testbin", hex.EncodeToString(h.Sum(nil))[:20])
	return dir, os.MkdirAll(dir, 0o755)
}

// lock takes path's exclusive lock, waiting at most wait for another
// process to give it back, and returns what gives it back.
func lock(path string, wait time.Duration) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			// Closing the file gives the lock back.
			return func() { _ = f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			_ = f.Close()
			return nil, fmt.Errorf("lock %s (another test's build of these programs, waited %v): %w", path, wait, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
