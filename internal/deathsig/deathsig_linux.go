// Package deathsig ties a child process to abbench's lifetime where the
// system can: on Linux the child gets a parent-death signal, so nothing it
// runs outlives a crashed abbench. Elsewhere there is no such signal; the
// commands that launch runs refuse there (runs need Linux), and the rest
// of abbench still builds.
package deathsig

import "syscall"

// With returns attr with sig as the child's parent-death signal.
func With(attr *syscall.SysProcAttr, sig syscall.Signal) *syscall.SysProcAttr {
	attr.Pdeathsig = sig
	return attr
}
