package arms

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/abbench/abbench/internal/arms/ranks/containers"
	"github.com/abbench/abbench/internal/container"
	"github.com/abbench/abbench/internal/proctree"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
)

// guardSweep bounds how long a guard kills what its run left.
const guardSweep = 5 * time.Second

// startGuard starts the attempt's guard: a small process (abbench guard)
// that outlives its controller. When the controller ends, however it ends
// (a SIGKILL included, which no controller code survives), the guard kills
// every process that carries the run's token, setsid daemons of ranks
// included, and marks an attempt whose status still says running as
// interrupted. It leaves the controller's session and carries none of
// abbench's variables, so neither the controller's sweep nor its launcher's
// kills it before it is done; it ends by itself within guardSweep.
//
// It learns that the controller ended from its stdin, a pipe whose write
// end only the controller holds (close-on-exec: no rank inherits it), and
// which ends with the controller or with its run (closeGuard). A
// parent-death signal it once had instead reached it while it was still
// starting, before it could catch it, and killed it: a controller killed
// just after its hook started left the hook running.
func (c *controller) startGuard() error {
	docker := ""
	if c.containers != nil {
		docker = c.containers.Docker.Command().Path // it removes the run's containers too
	}
	w, err := startGuard(c.self, c.opts.Token, c.dir, docker)
	c.guardPipe = w
	return err
}

// startGuard starts self's guard verb for token and attempt, with this
// process as its controller; the write end of its pipe is returned.
func startGuard(self, token, attempt, docker string) (*os.File, error) {
	args := []string{"guard", token, attempt, strconv.Itoa(os.Getpid())}
	if docker != "" {
		args = append(args, docker)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer func() { _ = r.Close() }() // the guard holds its own copy
	cmd := exec.Command(self, args...)
	cmd.Stdin = r
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ABBENCH_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		_ = w.Close()
		return nil, err
	}
	go func() { _ = cmd.Wait() }() // reap it if the controller outlives it; how it ended is its own to record
	return w, nil
}

// closeGuard tells the guard that the run ended: it checks the run's
// status (a run swept clean needs nothing more) and ends.
func (c *controller) closeGuard() {
	if c.guardPipe != nil {
		_ = c.guardPipe.Close() // a guard gone already has nothing to be told
		c.guardPipe = nil
	}
}

// pollParent bounds how long a guard whose pipe did not end takes to see
// that its controller is gone (a guard run without the pipe).
const pollParent = 100 * time.Millisecond

// IgnoreSignals is the first step of a guard process: nothing but its
// controller's end stops it, not a terminal's signals (it has a session of
// its own) nor a sweep's SIGTERM.
func IgnoreSignals() {
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE)
}

// Guard is the body of abbench guard TOKEN ATTEMPT CONTROLLER-PID [DOCKER]:
// wait for the controller to end (in, its pipe, ends; nil: none), or to
// be no longer the guard's parent, then sweep the run's processes (and,
// given the docker client, remove the run's containers) and mark the
// attempt interrupted if it never said how it ended. The error is a
// write-failed reason when that mark could not be written.
func Guard(in io.Reader, token, attempt string, controller int, docker string) error {
	since := controllerStart(controller)
	waitController(in, controller)
	if st, err := rundir.ReadStatus(attempt); err == nil && sweptClean(st) {
		return nil // its controller ended the run and saw nothing of it left: no scan beside the next run's start
	}
	found := survivorsSince(token, since)
	left := found // none found (its controller swept them): one pass over /proc, not two
	if len(found) > 0 {
		left = survivorsAfter(token, since, guardSweep)
	}
	swept := len(found)
	var leftContainers []string
	if docker != "" {
		leftContainers = containers.RemoveRun(container.Docker{Program: docker}, token)
	}
	_ = os.RemoveAll(rundir.Scratch(token)) // a killed controller left it; what stays is litter nothing reads
	st, err := rundir.ReadStatus(attempt)
	if err != nil || st.State != rundir.StateRunning {
		return nil // the controller said how the run ended
	}
	st.State = rundir.StateInterrupted
	st.Reasons = append(st.Reasons, reason.Reason{Code: reason.Interrupted, Arm: st.Arm,
		Detail: fmt.Sprintf("the controller (pid %d) ended without a word during phase %s (killed); its guard stopped the run's processes", controller, st.Phase)})
	if len(left) > 0 {
		st.Reasons = append(st.Reasons, reason.Reason{Code: reason.UncleanShutdown, Arm: st.Arm,
			Detail: fmt.Sprintf("processes %v of the run survived SIGKILL for %s", left, guardSweep)})
	}
	if len(leftContainers) > 0 {
		st.Reasons = append(st.Reasons, reason.Reason{Code: reason.UncleanShutdown, Arm: st.Arm,
			Detail: fmt.Sprintf("containers of the run are left: %s", strings.Join(leftContainers, "; "))})
	}
	st.Swept = swept
	st.Ended = time.Now().UTC()
	if err := rundir.WriteStatus(attempt, st); err != nil {
		return &reason.Error{Reasons: []reason.Reason{{Code: reason.WriteFailed, Arm: st.Arm,
			Detail: fmt.Sprintf("marking the attempt interrupted: %v: it still says running", err)}}}
	}
	return nil
}

// waitController returns once in ends or the controller is no longer this
// process's parent.
func waitController(in io.Reader, controller int) {
	ended := make(chan struct{})
	if in != nil {
		go func() {
			_, _ = io.Copy(io.Discard, in) // nothing is written: any end is the controller's
			close(ended)
		}()
	}
	for os.Getppid() == controller {
		select {
		case <-ended:
			return
		case <-time.After(pollParent):
		}
	}
}

// controllerStart is when the guard's controller started (proctree.StartTime):
// every process that carries the run's token started at or after it, so
// the guard's sweep reads only their environments, not every process's,
// while the campaign's next run starts beside it. It is 0 (every
// environment read) unless the controller is still the guard's parent
// once read, so that a pid reused after the controller died is never
// taken for it.
func controllerStart(controller int) uint64 {
	t := proctree.StartTime(controller)
	if os.Getppid() != controller {
		return 0
	}
	return t
}

// sweptClean says whether st is the status of a run whose controller
// ended it and whose teardown's sweep saw no process of it left: the
// end time is set only after that sweep (the state is final from the
// teardown's start), and nothing after it starts a process. A run with
// processes left (unclean-shutdown) is swept again.
func sweptClean(st *rundir.Status) bool {
	if st.State == rundir.StateRunning || st.Ended.IsZero() {
		return false
	}
	for _, r := range st.Reasons {
		if r.Code == reason.UncleanShutdown {
			return false
		}
	}
	return true
}
