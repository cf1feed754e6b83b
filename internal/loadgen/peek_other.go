//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package loadgen

import "syscall"

// canPeek: no peek here; an idle connection is judged by its age, as
// under TLS.
const canPeek = false

// peek cannot look at a socket here: a connection the server closed while
// idle is found when a request is written on it (connection-closed).
func peek(syscall.RawConn) (stray, closed bool) { return false, false }

// step is never called here: no raw socket is kept.
func (r *rawWriter) step(uintptr) bool { return true }

// step is never called here: no raw socket is kept.
func (r *rawReader) step(uintptr) bool { return true }
