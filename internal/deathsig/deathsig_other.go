//go:build !linux

package deathsig

import "syscall"

// With returns attr as it is: only Linux has a parent-death signal.
func With(attr *syscall.SysProcAttr, _ syscall.Signal) *syscall.SysProcAttr {
	return attr
}
