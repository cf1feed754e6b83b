package arms

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/abbench/abbench/arms/rankwrap"

	"github.com/abbench/abbench/internal/deathsig"
	"github.com/abbench/abbench/internal/proctree"
)

// rankProc is one running rank: its own process group, output appended to
// its log.
type rankProc struct {
	role   string
	rank   int
	client bool
	log    string // path
	offset int64  // log size before the rank started
	inode  uint64
	cmd    *exec.Cmd
	done   chan struct{}
	state  *os.ProcessState
	// stopping is set once teardown signalled the rank: its exit is expected.
	stopping bool
	killed   bool
	// step is the srun step running this rank (--ranks srun), else nil.
	step *srunStep
	// pod is the rank's pod (--ranks kubernetes), else nil.
	pod *podRank
	// container names the rank's container (a role with container:).
	container string
	// ready and mode follow the rank's log for its readiness probe and
	// its mode line, each reading only what the log gained.
	ready, mode *follower
}

func (p *rankProc) name() string { return p.role + "-" + strconv.Itoa(p.rank) }

func (p *rankProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// exitCode is the rank's exit status, or -1 when a signal ended it.
func (p *rankProc) exitCode() int {
	if p.pod != nil {
		return p.pod.code
	}
	if p.state == nil {
		return -1
	}
	return p.state.ExitCode()
}

// cleanStop reports whether the rank ended as a clean shutdown: exit 0, or
// death by the SIGTERM teardown sent (a program need not handle it).
func (p *rankProc) cleanStop() bool {
	if p.pod != nil { // the kubelet reports a rank SIGTERM ended so
		return !p.killed && (p.pod.code == 0 || p.stopping && p.pod.code == 128+int(syscall.SIGTERM))
	}
	if p.state == nil || p.killed {
		return false
	}
	if ws, ok := p.state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return p.stopping && ws.Signal() == syscall.SIGTERM
	}
	if (p.step != nil || p.container != "") && p.stopping && p.state.ExitCode() == 128+int(syscall.SIGTERM) {
		return true // srun and a container's init report ranks ended by the SIGTERM of teardown so
	}
	return p.state.ExitCode() == 0
}

// howEnded describes the exit for a reason's detail.
func (p *rankProc) howEnded() string {
	if p.pod != nil {
		return p.pod.how
	}
	if p.state == nil {
		return "did not end"
	}
	if ws, ok := p.state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "was ended by " + ws.Signal().String()
	}
	return "exited with status " + strconv.Itoa(p.state.ExitCode())
}

// exitDetail says how a rank that should have exited 0 ended: its
// status, and for a rank pod which pod, on which node, and why.
func (p *rankProc) exitDetail() string {
	if p.pod != nil {
		return p.pod.how
	}
	return "exited with status " + strconv.Itoa(p.exitCode())
}

// openLog creates the rank's log (appending) and records its size and
// inode before the rank writes: the scope of its evidence.
func (p *rankProc) openLog() error {
	f, err := p.logFile()
	if err != nil {
		return err
	}
	return f.Close()
}

func (p *rankProc) logFile() (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(p.log), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil {
		p.offset = fi.Size()
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			p.inode = st.Ino
		}
	}
	return f, nil
}

func startRank(p *rankProc, wrapper, argv, env []string, dir string, exited chan<- *rankProc) error {
	f, err := p.logFile()
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }() // the rank writes the log through its own descriptor; this one wrote nothing
	full := append(slices.Clone(wrapper), argv...)
	cmd := exec.Command(full[0], full[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, f, f
	// Its own process group, so teardown signals the rank and its children;
	// and killed with the controller, so nothing outlives a crashed controller.
	cmd.SysProcAttr = deathsig.With(&syscall.SysProcAttr{Setpgid: true}, syscall.SIGKILL)
	if err := cmd.Start(); err != nil {
		return err
	}
	p.cmd, p.done = cmd, make(chan struct{})
	go func() {
		// How it ended is in ProcessState (a rank's non-zero exit is
		// reported from there); Wait's error says the same again.
		_ = cmd.Wait()
		p.state = cmd.ProcessState
		close(p.done)
		exited <- p
	}()
	return nil
}

// signalGroup signals the rank's process group.
func (p *rankProc) signalGroup(sig syscall.Signal) {
	if p.cmd != nil && p.cmd.Process != nil {
		syscall.Kill(-p.cmd.Process.Pid, sig)
	}
}

// stopAll sends SIGTERM to every rank's group, waits up to grace, then
// SIGKILLs what is left and waits for it (bounded by limit).
func stopAll(procs []*rankProc, grace, limit time.Duration) {
	deadline := time.Now().Add(limit)
	procs = slices.DeleteFunc(slices.Clone(procs), func(p *rankProc) bool { return p.step != nil || p.container != "" || p.pod != nil })
	for _, p := range procs {
		p.stopping = true
		if !p.exited() {
			p.signalGroup(syscall.SIGTERM)
		}
	}
	graceEnd := time.Now().Add(min(grace, limit))
	for _, p := range procs {
		select {
		case <-p.done:
		case <-time.After(time.Until(graceEnd)):
		}
	}
	for _, p := range procs {
		if !p.exited() {
			p.killed = true
		}
		// Kill the group even when the leader exited: its children may not have.
		p.signalGroup(syscall.SIGKILL)
	}
	for _, p := range procs {
		select {
		case <-p.done:
		case <-time.After(max(time.Until(deadline), time.Second)):
		}
	}
}

// sweepWait bounds the wait for swept processes to die.
const sweepWait = 3 * time.Second

// survivorsAfter polls until no process that started at or after since
// (survivorsSince) carries token, for at most wait, and returns those
// still alive then.
func survivorsAfter(token string, since uint64, wait time.Duration) []int {
	deadline := time.Now().Add(wait)
	for {
		left := survivorsSince(token, since)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		proctree.Kill(left)
		time.Sleep(20 * time.Millisecond)
	}
}

// Survivors lists the live processes carrying the run's token.
func Survivors(token string) []int { return survivorsSince(token, 0) }

// survivorsSince lists the live processes carrying the run's token among
// those that started at or after since (clock ticks after boot of the
// controller's start, proctree.StartTime; 0: every process): only a
// process the controller or its ranks started can carry the token.
func survivorsSince(token string, since uint64) []int {
	return proctree.WithEnvSince(rankwrap.EnvToken, token, since)
}
