//go:build linux && (amd64 || arm64)

package rankstest

import (
	"syscall"
	"unsafe"
)

// sigaction is the kernel's struct sigaction on linux/amd64 and arm64.
type sigaction struct {
	handler, flags, restorer, mask uint64
}

// defaultAction gives sig its default action (SIG_DFL) again: a signal
// ignored when the process started (nohup's SIGHUP, a background job's
// SIGINT) stays ignored in a Go program, and the rank that should end by
// it would run on.
func defaultAction(sig syscall.Signal) {
	var act sigaction // handler 0: SIG_DFL
	_, _, _ = syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
}
