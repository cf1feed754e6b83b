//go:build !linux

package main

import "github.com/rogpeppe/go-internal/testscript"

// cmdTmpfs fails the script: a tmpfs is mounted on Linux only, and the
// scripts that fill a disk launch runs, which need Linux.
func cmdTmpfs(ts *testscript.TestScript, _ bool, _ []string) {
	ts.Fatalf("tmpfs: needs Linux")
}
