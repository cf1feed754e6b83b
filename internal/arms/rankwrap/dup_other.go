//go:build !linux

package rankwrap

import "syscall"

// dupTo makes fd newfd a copy of oldfd.
func dupTo(oldfd, newfd int) error { return syscall.Dup2(oldfd, newfd) }
