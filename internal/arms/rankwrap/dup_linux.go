package rankwrap

import "syscall"

// dupTo makes fd newfd a copy of oldfd. dup3: linux/arm64 has no dup2
// system call (the syscall package has no Dup2 there).
func dupTo(oldfd, newfd int) error { return syscall.Dup3(oldfd, newfd, 0) }
