package main

import (
	"os"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdTmpfs is tmpfs DIR SIZE: DIR (made) is a tmpfs of SIZE bytes ("64k")
// until the script ends: a small disk to fill. Root only.
func cmdTmpfs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: tmpfs DIR SIZE")
	}
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o755))
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+args[1]); err != nil {
		ts.Fatalf("mounting a tmpfs on %s: %v", dir, err)
	}
	ts.Defer(func() {
		// Detached: a run's guard may still have its directory
		// open for a few seconds; the tmpfs goes when it is done.
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			ts.Logf("unmounting %s: %v", dir, err)
		}
	})
}
