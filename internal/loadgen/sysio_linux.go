//go:build linux && !race

package loadgen

import (
	"syscall"
	"unsafe"
)

// sysRead and sysWrite read and write a non-blocking socket as raw system
// calls, not telling the runtime: a call that cannot block needs none of
// the runtime's system-call bookkeeping, and with it a write on loopback
// (which delivers the bytes to the server inside the call) lasted long
// enough, on a loaded machine, for the runtime's monitor to take the
// processor back and start another thread for it, then to be woken every
// 20 us while the client alternated between busy and idle: half the
// client's context switches (perf record -e sched:sched_switch). Not
// under the race detector: it knows an ordinary read or write of a
// socket as a point that orders goroutines (a server's writes before the
// answer, a client's reads after it), and a raw one as nothing.
func sysRead(fd int, p []byte) (int, error) {
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(bufPtr(p)), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func sysWrite(fd int, p []byte) (int, error) {
	n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(bufPtr(p)), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func bufPtr(p []byte) unsafe.Pointer {
	if len(p) == 0 {
		return nil
	}
	return unsafe.Pointer(&p[0])
}
