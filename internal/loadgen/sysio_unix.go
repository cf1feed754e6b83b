//go:build (linux && race) || darwin || freebsd || netbsd || openbsd || dragonfly

package loadgen

import "syscall"

// sysRead and sysWrite are the runtime's ordinary system calls here, and
// under the race detector (sysio_linux.go says why Linux makes them raw
// otherwise, and why not then).
func sysRead(fd int, p []byte) (int, error)  { return syscall.Read(fd, p) }
func sysWrite(fd int, p []byte) (int, error) { return syscall.Write(fd, p) }
