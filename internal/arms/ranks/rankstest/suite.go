// Package rankstest is the contract suite every rank driver must pass
// (arms/ranks): ranks start and say they are ready, every rank sees the
// arm's environment, Stop sends SIGTERM and then SIGKILL to a rank that
// ignores it, exit statuses and signals come back typed, and a rank
// killed from outside is reported as ended. It runs a static rank
// program (rankprog), so that an image FROM scratch can hold it.
package rankstest

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/arms/ranks"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// Backend is the driver under test.
type Backend struct {
	// Open makes a fresh driver for one run whose files go to dir (a
	// fresh directory every rank can reach).
	Open func(t *testing.T, dir string) ranks.Driver
	// Program is the rank program's argv on the ranks' side (rankprog,
	// built statically: Build), the act and its arguments after it.
	Program []string
	// Role, when set, completes a role the suite starts (a container
	// role's image).
	Role func(r *scenarios.Role)
	// Kill kills rank r from outside the driver, as a crash, an OOM kill
	// or a lost node would.
	Kill func(t *testing.T, r *ranks.Rank)
	// Env is what every rank's environment starts from (PATH, say).
	Env []string
	// RankEnv, when set, is what rank r of a run in dir is given besides
	// (what the driver's rank wrapper needs, say).
	RankEnv func(dir string, r *ranks.Rank) []string
	// Timeout bounds each wait (schedulers are slower than processes).
	Timeout time.Duration
	// EndsWithStep says a rank's end is known only when every rank of its
	// role has ended or been stopped: srun runs a role as one step, and
	// says nothing a program may read of a task that ended before the
	// others. A lost rank is then held to an unclean end once its role
	// is stopped, its peers still running until then.
	EndsWithStep bool
}

// Run runs the suite.
func Run(t *testing.T, b Backend) {
	if b.Timeout == 0 {
		b.Timeout = 30 * time.Second
	}
	s := &suite{Backend: b}
	t.Run("start ready and the arm seen by every rank", s.startsReadyWithTheArm)
	t.Run("SIGTERM then SIGKILL", s.termThenKill)
	t.Run("exit status typed", s.exitStatus)
	t.Run("signal typed", s.signal)
	t.Run("lost rank", s.lostRank)
}

type suite struct{ Backend }

// started is one role the suite started and what it heard of its ends.
type started struct {
	d     ranks.Driver
	ranks []*ranks.Rank
	mu    sync.Mutex
	ends  map[*ranks.Rank]int
}

// start starts role of n ranks, each running the program's act; the
// driver is stopped when the test ends.
func (s *suite) start(t *testing.T, role string, n int, act ...string) *started {
	t.Helper()
	dir := t.TempDir()
	st := &started{d: s.Open(t, dir), ends: map[*ranks.Rank]int{}}
	r := &scenarios.Role{Name: role, Ranks: n}
	if s.Role != nil {
		s.Role(r)
	}
	for i := range n {
		rk := ranks.NewRank(role, i, filepath.Join(dir, rundir.RankName(role, i)+".log"), func(rk *ranks.Rank) {
			st.mu.Lock()
			st.ends[rk]++
			st.mu.Unlock()
		})
		rk.Argv = append(append([]string{}, s.Program...), act...)
		rk.Env = append(append([]string{}, s.Env...), EnvArm+"=arm-"+role, EnvIndex+"="+strconv.Itoa(i))
		if s.RankEnv != nil {
			rk.Env = append(rk.Env, s.RankEnv(dir, rk)...)
		}
		st.ranks = append(st.ranks, rk)
	}
	if err := st.d.Start(r, st.ranks); err != nil {
		t.Fatalf("Start: %v", err)
	}
	for _, rk := range st.ranks {
		if rk.StartErr != nil {
			t.Fatalf("rank %s did not start: %v", rk.Name(), rk.StartErr)
		}
	}
	t.Cleanup(func() { st.d.Stop(time.Second, s.Timeout) })
	return st
}

// ended waits for rk to end, at most the timeout, and checks its end was
// heard once.
func (s *suite) ended(t *testing.T, st *started, rk *ranks.Rank) ranks.Exit {
	t.Helper()
	select {
	case <-rk.Done():
	case <-time.After(s.Timeout):
		t.Fatalf("rank %s did not end within %s", rk.Name(), s.Timeout)
	}
	// Its end is heard just after Done closes (whoever hears it may read
	// its exit at once).
	heard := 0
	for until := time.Now().Add(time.Second); heard == 0 && time.Now().Before(until); time.Sleep(time.Millisecond) {
		st.mu.Lock()
		heard = st.ends[rk]
		st.mu.Unlock()
	}
	if heard != 1 {
		t.Errorf("rank %s's end was heard %d times, want once", rk.Name(), heard)
	}
	return rk.Exit()
}

// ready waits until every rank wrote its ready line, with the arm's value.
func (s *suite) ready(t *testing.T, st *started) {
	t.Helper()
	deadline := time.Now().Add(s.Timeout)
	for _, rk := range st.ranks {
		want := readyLine(strconv.Itoa(rk.Index), "arm-"+rk.Role)
		for !hasLine(rk.Log, want) {
			if rk.Ended() || time.Now().After(deadline) {
				data, _ := os.ReadFile(rk.Log)
				t.Fatalf("rank %s never wrote %q (ended: %v, %s); its log:\n%s", rk.Name(), want, rk.Ended(), rk.Exit().Reason, data)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// hasLine says whether the file at path has line.
func hasLine(path, line string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer func() { _ = f.Close() }() // read only
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == line {
			return true
		}
	}
	return false
}

func (s *suite) startsReadyWithTheArm(t *testing.T) {
	st := s.start(t, "serve", 3, actServe)
	s.ready(t, st)
	for _, rk := range st.ranks {
		if rk.Ended() {
			t.Fatalf("rank %s ended while serving: %s", rk.Name(), rk.Exit().Reason)
		}
		// A rank that is not remote is a process of this host, which the
		// controller's sweeps and signals reach.
		if !st.d.Remote() && (rk.PID() <= 0 || syscall.Kill(rk.PID(), 0) != nil) {
			t.Errorf("rank %s of a driver that is not remote has no live process here (pid %d)", rk.Name(), rk.PID())
		}
	}
	if reasons := st.d.Stop(5*time.Second, s.Timeout); len(reasons) > 0 {
		t.Errorf("Stop: %v", reasons)
	}
	for _, rk := range st.ranks {
		e := s.ended(t, st, rk)
		if rk.Killed() || !e.Clean(true) || e.Signal != syscall.SIGTERM {
			t.Errorf("rank %s: %+v, killed %v: want ended by Stop's SIGTERM, cleanly", rk.Name(), e, rk.Killed())
		}
	}
}

func (s *suite) termThenKill(t *testing.T) {
	st := s.start(t, "stubborn", 1, actStubborn)
	s.ready(t, st)
	const grace = 500 * time.Millisecond
	began := time.Now()
	st.d.Stop(grace, s.Timeout)
	rk := st.ranks[0]
	e := s.ended(t, st, rk)
	if took := time.Since(began); took < grace {
		t.Errorf("Stop took %s: it did not wait out the grace %s", took, grace)
	}
	if !rk.Killed() || e.Signal != syscall.SIGKILL || e.Clean(true) {
		t.Errorf("%+v, killed %v: want killed by SIGKILL after ignoring SIGTERM", e, rk.Killed())
	}
}

func (s *suite) exitStatus(t *testing.T) {
	st := s.start(t, "exits", 2, actExit, "3")
	for _, rk := range st.ranks {
		e := s.ended(t, st, rk)
		// A remote driver's reason may say where, too (the pod and node).
		if e.Code != 3 || e.Signal != 0 || !strings.Contains(e.Reason, "exited with status 3") || e.Clean(true) || rk.Killed() {
			t.Errorf("rank %s: %+v, want status 3, not clean", rk.Name(), e)
		}
	}
	// Every rank ended: Stop has nothing to stop, and says so at once.
	began := time.Now()
	if reasons := st.d.Stop(time.Minute, 2*time.Minute); len(reasons) > 0 || time.Since(began) > s.Timeout {
		t.Errorf("Stop of ended ranks: %v, took %s", reasons, time.Since(began))
	}
}

func (s *suite) signal(t *testing.T) {
	st := s.start(t, "signalled", 1, actSignal, strconv.Itoa(int(syscall.SIGHUP)))
	e := s.ended(t, st, st.ranks[0])
	// A process of this host has no status then (-1); a runtime that
	// reports the rank's end as a status says 128+signal.
	if e.Signal != syscall.SIGHUP || e.Code != -1 && e.Code != 128+int(syscall.SIGHUP) || e.Clean(true) || e.Reason == "" {
		t.Errorf("%+v: want ended by SIGHUP, typed", e)
	}
}

func (s *suite) lostRank(t *testing.T) {
	st := s.start(t, "lost", 2, actServe)
	s.ready(t, st)
	s.Kill(t, st.ranks[1])
	if s.EndsWithStep {
		time.Sleep(time.Second) // what a driver that heard the loss at once would have heard by now
		if st.ranks[0].Ended() {
			t.Errorf("rank 0 ended with its peer: %s", st.ranks[0].Exit().Reason)
		}
		st.d.Stop(time.Second, s.Timeout)
	}
	e := s.ended(t, st, st.ranks[1])
	if e.Clean(false) || e.Reason == "" {
		t.Errorf("a rank killed from outside: %+v, want an unclean end that says how", e)
	}
	if !s.EndsWithStep && st.ranks[0].Ended() {
		t.Errorf("rank 0 ended with its peer: %s", st.ranks[0].Exit().Reason)
	}
}
