package ranks

import (
	"os"
	"syscall"
)

// ExitOf is the exit a process's state reports. statusSignals says the
// process reports a rank a signal ended as status 128+signal (srun, a
// container's client): the signal is read from the status then.
func ExitOf(state *os.ProcessState, statusSignals bool) Exit {
	if state == nil {
		return notEnded
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return Signalled(ws.Signal())
	}
	e := Exited(state.ExitCode())
	if statusSignals {
		e.Signal = StatusSignal(e.Code)
	}
	return e
}
