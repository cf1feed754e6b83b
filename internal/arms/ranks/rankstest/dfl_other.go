//go:build !linux || !(amd64 || arm64)

package rankstest

import "syscall"

// defaultAction does nothing here: the rank drivers run on Linux.
func defaultAction(syscall.Signal) {}
