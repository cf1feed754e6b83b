package hookproc

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/abbench/abbench/internal/arms/rankwrap"
	"github.com/abbench/abbench/internal/proctree"
)

// A campaign's hook runs in abbench run itself, which no code of it
// outlives when it is SIGKILLed: the parent-death signal reaches the
// hook's leader only, so what the leader started (in its group, or in a
// session of its own) would live on. A guarded hook carries a token of its
// own in its environment (ABBENCH_TOKEN, which a process keeps through
// setsid), and a guard process beside it holds the read end of a pipe
// whose write end only abbench holds: once abbench is gone the pipe ends,
// and the guard kills the hook's process group and every process carrying
// its token. A hook that ended is told so ("done"), and its guard leaves
// what it started alone (a before_all hook may start what the campaign
// uses).

// Guard starts a hook's guard: Program with Args, then the token and the
// guard's lifetime in seconds, abbench's own "abbench hook-guard TOKEN
// SECONDS" (GuardMain is its body).
type Guard struct {
	Program string
	Args    []string
}

const (
	// guardSweep bounds how long a guard kills what its hook left.
	guardSweep = 5 * time.Second
	// guardStop bounds the wait for a guard told that its hook ended.
	guardStop = 5 * time.Second
	// guardLine caps what a guard reads of a line from abbench.
	guardLine = 64
)

// watch is a started guard: the write end of its pipe.
type watch struct {
	cmd *exec.Cmd
	w   *os.File
}

// start starts the guard of token for a hook that may run for life.
func (g *Guard) start(token string, life time.Duration) (*watch, error) {
	r, w, err := os.Pipe() // close-on-exec: no hook inherits the write end
	if err != nil {
		return nil, err
	}
	defer func() { _ = r.Close() }() // the guard holds its own copy
	args := append(append([]string{}, g.Args...), token, strconv.Itoa(int(life.Seconds())+1))
	cmd := exec.Command(g.Program, args...)
	cmd.Stdin = r
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ABBENCH_") { // never its own target
			cmd.Env = append(cmd.Env, kv)
		}
	}
	// A session of its own: a terminal's signals to abbench's group and
	// abbench's own sweeps pass it by.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("its guard %s could not be started: %w", g.Program, err)
	}
	return &watch{cmd: cmd, w: w}, nil
}

// group tells the guard the hook's process group.
func (wt *watch) group(pgid int) {
	_, _ = fmt.Fprintf(wt.w, "%d\n", pgid) // a guard gone already sweeps by token alone
}

// done tells the guard its hook ended, and waits (bounded) for it to go.
func (wt *watch) done() {
	_, _ = io.WriteString(wt.w, "done\n") // a guard gone already has nothing to be told
	_ = wt.w.Close()
	ended := make(chan struct{})
	go func() {
		_ = wt.cmd.Wait() // how the guard ended is its own
		close(ended)
	}()
	select {
	case <-ended:
	case <-time.After(guardStop):
		_ = wt.cmd.Process.Kill() // it was only to sweep after abbench's death
	}
}

// guarded starts guard for a hook that may run for life, and gives cmd
// (the hook, env its environment, nil for abbench's) the guard's token.
func guarded(cmd *exec.Cmd, guard *Guard, env []string, life time.Duration) (*watch, error) {
	token, err := newToken()
	if err != nil {
		return nil, err
	}
	wt, err := guard.start(token, life)
	if err != nil {
		return nil, err
	}
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(slices.Clone(env), rankwrap.EnvToken+"="+token)
	return wt, nil
}

// newToken is a hook's token: random, so that no other process carries it.
func newToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "hook-" + hex.EncodeToString(b), nil
}

// GuardMain is the body of abbench hook-guard TOKEN SECONDS: it reads the
// hook's process group from in, then waits for "done" (the hook ended:
// nothing to do) or the end of in (abbench is gone: kill the group and
// every process carrying ABBENCH_TOKEN=TOKEN), at most SECONDS.
func GuardMain(in io.Reader, token, seconds string) error {
	life, err := strconv.Atoi(seconds)
	if err != nil || life <= 0 || token == "" {
		return fmt.Errorf("hook guard: want TOKEN and a lifetime in seconds, got %q %q", token, seconds)
	}
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGPIPE)
	orphaned := make(chan int, 1)
	go func() {
		pgid := 0
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, guardLine), guardLine)
		for sc.Scan() {
			if sc.Text() == "done" {
				close(orphaned)
				return
			}
			if n, err := strconv.Atoi(sc.Text()); err == nil && n > 1 {
				pgid = n
			}
		}
		orphaned <- pgid
	}()
	select {
	case pgid, ok := <-orphaned:
		if ok {
			sweep(pgid, token)
		}
	case <-time.After(time.Duration(life) * time.Second):
		// abbench outlived every deadline of the hook: it stops it itself.
	}
	return nil
}

// sweep kills the hook's group and every process carrying its token,
// again until none is left or guardSweep has passed.
func sweep(pgid int, token string) {
	if pgid > 1 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL) // gone already: nothing to kill
	}
	deadline := time.Now().Add(guardSweep)
	for {
		left := proctree.WithEnv(rankwrap.EnvToken, token)
		if len(left) == 0 || time.Now().After(deadline) {
			return
		}
		proctree.Kill(left)
		time.Sleep(20 * time.Millisecond)
	}
}
