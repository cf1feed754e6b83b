package rankwrap

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
)

// startPPID is the wrapper's parent when it started: the controller.
var startPPID = os.Getppid()

// keepParentDeathSignal sets SIGKILL as the parent-death signal of the
// thread about to exec. The signal the controller set belongs to the
// wrapper's main OS thread: execve from another thread would start the rank
// without it, and a killed controller would leave the rank running. So the
// calling goroutine is locked to its thread (abbench-rank locks main to the
// main thread from the start), the signal is set again on it,
// then checks the parent is still the one the wrapper started under: a
// controller that died before this point sent no signal, so the rank must
// not start.
func keepParentDeathSignal() error {
	runtime.LockOSThread() // never unlocked: the next step is exec
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0); errno != 0 {
		return fmt.Errorf("rank wrapper: setting the parent-death signal: %v", errno)
	}
	if os.Getppid() != startPPID {
		return fmt.Errorf("rank wrapper: the controller (pid %d) is gone; not starting the rank", startPPID)
	}
	return nil
}
