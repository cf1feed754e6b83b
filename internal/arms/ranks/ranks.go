// Package ranks is how an arm run starts and stops its ranks: the Driver
// interface every way of starting them implements (local processes, srun
// steps, containers, Kubernetes pods), the Rank each driver reports on,
// and the typed Exit the controller judges a rank by, whatever started
// it. A driver's contract is in the method comments, and every driver
// passes the shared suite in arms/ranks/rankstest.
package ranks

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// Driver starts and stops the ranks of a run's roles.
type Driver interface {
	// Name is the driver's name, as --ranks takes it.
	Name() string
	// Remote says the ranks run elsewhere than this host (srun steps,
	// pods): each starts from its launch file, and the controller's local
	// sweeps cannot see them (the scheduler stops what they leave).
	Remote() bool
	// Start starts every rank of role. A rank that could not start on its
	// own has its StartErr set (the others run); an error means the role
	// as a whole could not start. Every rank Start was given ends (End)
	// once, whatever failed: one never made ends at once.
	Start(role *scenarios.Role, ranks []*Rank) error
	// Stop stops every rank started: SIGTERM, up to grace for it to end,
	// then SIGKILL (each rank that needed it marked Kill), all bounded by
	// limit. It returns what could not be cleaned up, as reasons.
	Stop(grace, limit time.Duration) []reason.Reason
}

// Exit is how a rank ended, as every driver reports it.
type Exit struct {
	// Code is the exit status; -1 when it has none (ended by a signal on
	// this host, or never run).
	Code int
	// Signal is the signal that ended the rank, 0 when none did. srun, a
	// container's init and the kubelet report a rank a signal ended as
	// status 128+signal: their drivers say so here too.
	Signal syscall.Signal
	// Reason says how it ended, for a reason's detail: "exited with status
	// 3", "was ended by killed", or a pod's end naming the pod and node.
	Reason string
}

// Clean says whether the exit is a clean shutdown: status 0, or death by
// the SIGTERM teardown sent when stopping (a program need not handle it).
func (e Exit) Clean(stopping bool) bool {
	return e.Code == 0 || stopping && e.Signal == syscall.SIGTERM
}

// Exited is the exit of a rank that ended with status code.
func Exited(code int) Exit {
	return Exit{Code: code, Reason: "exited with status " + strconv.Itoa(code) + startFailure[code]}
}

// startFailure names the statuses that say the program never started,
// as the shell and the rank wrapper (127 for whatever kept it from
// starting) give them: the cause, first in a reason a summary may cut.
var startFailure = map[int]string{
	126: " (its program could not be run: not executable?)",
	127: " (its program could not be started: not found, misspelled?)",
}

// Signalled is the exit of a rank sig ended on this host.
func Signalled(sig syscall.Signal) Exit {
	return Exit{Code: -1, Signal: sig, Reason: "was ended by " + sig.String()}
}

// StatusSignal is the signal a status of 128+signal reports (srun, a
// container's init, the kubelet), 0 for any other status.
func StatusSignal(code int) syscall.Signal {
	if code > 128 && code < 128+65 {
		return syscall.Signal(code - 128)
	}
	return 0
}

// notEnded is the exit of a rank that has not ended.
var notEnded = Exit{Code: -1, Reason: "did not end"}

// Rank is one rank of a role: what to start (set by the controller), and
// how it went (set by its driver).
type Rank struct {
	Role  string
	Index int
	// Argv and Env are the rank's command, its wrapper not included, and
	// its whole environment.
	Argv, Env []string
	// Log is the rank's log (an absolute path): its output is appended.
	Log string
	// StartErr is why the rank alone could not start, set by Start.
	StartErr error
	// Offset and Inode are the log's size and inode when its driver
	// opened it, before the rank could write (OpenLog): the scope of the
	// rank's evidence.
	Offset int64
	Inode  uint64

	onEnd  func(*Rank)
	once   sync.Once
	done   chan struct{}
	exit   Exit
	killed atomic.Bool
	pid    atomic.Int64
	image  atomic.Pointer[string]
	// waiting is why the rank does not run yet, as its driver last saw.
	waiting atomic.Pointer[string]
}

// NewRank is rank index of role; onEnd, when set, hears its end once.
func NewRank(role string, index int, log string, onEnd func(*Rank)) *Rank {
	return &Rank{Role: role, Index: index, Log: log, onEnd: onEnd, done: make(chan struct{})}
}

// Name is the rank's name: ROLE-INDEX.
func (r *Rank) Name() string { return rundir.RankName(r.Role, r.Index) }

// End records how the rank ended, once: a later End is ignored and says
// false.
func (r *Rank) End(e Exit) bool {
	ended := false
	r.once.Do(func() {
		r.exit, ended = e, true
		close(r.done)
		if r.onEnd != nil {
			r.onEnd(r)
		}
	})
	return ended
}

// Done is closed once the rank ended.
func (r *Rank) Done() <-chan struct{} { return r.done }

// Ended says whether the rank ended.
func (r *Rank) Ended() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// Exit is how the rank ended; a rank that did not has Code -1 and says so.
func (r *Rank) Exit() Exit {
	if !r.Ended() {
		return notEnded
	}
	return r.exit
}

// Kill marks the rank killed: Stop had to SIGKILL it after the grace.
func (r *Rank) Kill() { r.killed.Store(true) }

// Killed says whether Stop had to kill the rank.
func (r *Rank) Killed() bool { return r.killed.Load() }

// SetPID records the process of this host that stands for the rank (its
// own, srun's, the attached container client's).
func (r *Rank) SetPID(pid int) { r.pid.Store(int64(pid)) }

// PID is the process of this host that stands for the rank, 0 if none.
func (r *Rank) PID() int { return int(r.pid.Load()) }

// SetImage records the image the rank ran, by digest, once its driver
// knows it (a pod's, as its kubelet reports it).
func (r *Rank) SetImage(id string) { r.image.Store(&id) }

// Image is the image the rank ran by digest, "" while unknown.
func (r *Rank) Image() string {
	if id := r.image.Load(); id != nil {
		return *id
	}
	return ""
}

// SetWaiting records why the rank does not run yet, as its driver sees
// it (a pod the scheduler cannot place: its reason), "" once it runs: a
// rank that never registers is reported with it.
func (r *Rank) SetWaiting(why string) { r.waiting.Store(&why) }

// Waiting is why the rank did not run yet when its driver last looked,
// "" when it runs or its driver cannot say.
func (r *Rank) Waiting() string {
	if why := r.waiting.Load(); why != nil {
		return *why
	}
	return ""
}

// OpenLog creates the rank's log (appending, its directory too) and
// records its size and inode before the rank writes: every driver opens
// it so before starting the rank, and a rank whose start fails before
// that leaves no log.
func (r *Rank) OpenLog() (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(r.Log), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(r.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil {
		r.Offset = fi.Size()
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			r.Inode = st.Ino
		}
	}
	return f, nil
}

// TouchLog opens the rank's log as OpenLog does, for a rank started
// elsewhere that writes it through a path of its own.
func (r *Rank) TouchLog() error {
	f, err := r.OpenLog()
	if err != nil {
		return err
	}
	return f.Close()
}
