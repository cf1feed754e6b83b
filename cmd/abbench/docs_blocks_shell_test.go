package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/abbench/abbench/internal/lockedbuf"
)

// docShell is one bash process that sources a file's blocks in turn, so a
// variable set or a directory entered in one block holds in the next, as
// in a reader's terminal. Block paths reach it on fd 3; it says each block
// ended on fd 4; the blocks' own commands see neither.
type docShell struct {
	cmd  *exec.Cmd
	feed *os.File          // block paths, one a line, to the shell's fd 3
	acks chan struct{}     // one per block the shell has finished
	out  *lockedbuf.Buffer // its stdout and stderr, as a terminal shows them
	std  *lockedbuf.Buffer // its stdout alone
	done chan struct{}     // closed once bash has exited
	err  error             // how it exited, once done is closed
}

// docShellLoop reads block paths and sources each, with fds 3 and 4 closed
// for its commands. After a block it writes an end line on stdout and on
// stderr, then acknowledges on fd 4: the ack says the block ended, the end
// lines say its output has come through the two pipes (each is read by a
// goroutine of its own, so the ack alone may overtake the output).
const docShellLoop = `while IFS= read -r -u 3 __docs_block; do . "$__docs_block" 3<&- 4>&-; printf '\n%s\n' "` + docShellEnd + `$__docs_block"; printf '\n%s\n' "` + docShellEnd + `$__docs_block" >&2; echo >&4; done`

// docShellDrain bounds the wait for a block's output once it has ended.
const docShellDrain = 30 * time.Second

// docShellEnd starts the line that ends a block's output on each stream.
const docShellEnd = "__docs_block_end "

// docShellGrace is how long a shell's processes get between SIGTERM
// (abbench tears its runs down) and SIGKILL.
const docShellGrace = 20 * time.Second

func startDocShell(dir string, env []string) (*docShell, error) {
	feedR, feedW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	ackR, ackW, err := os.Pipe()
	if err != nil {
		feedR.Close()
		feedW.Close()
		return nil, err
	}
	s := &docShell{feed: feedW, acks: make(chan struct{}, 64), out: &lockedbuf.Buffer{}, std: &lockedbuf.Buffer{}, done: make(chan struct{})}
	s.cmd = exec.Command("bash", "--noprofile", "--norc", "-c", docShellLoop)
	s.cmd.Dir, s.cmd.Env = dir, env
	s.cmd.Stdout, s.cmd.Stderr = io.MultiWriter(s.out, s.std), s.out
	s.cmd.ExtraFiles = []*os.File{feedR, ackW}
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	s.cmd.WaitDelay = docShellGrace
	err = s.cmd.Start()
	feedR.Close()
	ackW.Close()
	if err != nil {
		feedW.Close()
		ackR.Close()
		return nil, err
	}
	go func() {
		defer ackR.Close()
		lines := bufio.NewScanner(ackR)
		for lines.Scan() {
			s.acks <- struct{}{}
		}
	}()
	go func() {
		s.err = s.cmd.Wait()
		close(s.done)
	}()
	return s, nil
}

// source runs one block's script and returns what it printed (stdout and
// stderr together) and its stdout alone, or an error when the shell
// exited or the block ran past timeout (then the shell is stopped).
func (s *docShell) source(path string, timeout time.Duration) (output, stdout string, err error) {
	start, stdStart := len(s.out.String()), len(s.std.String())
	printed := func() (string, string) { return s.out.String()[start:], s.std.String()[stdStart:] }
	if _, err := fmt.Fprintln(s.feed, path); err != nil {
		return "", "", fmt.Errorf("the shell has ended: %v", err)
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	select {
	case <-s.acks:
		// The block ended; its output is whole once both end lines are in.
		// That takes the two copying goroutines a moment, bounded on its
		// own: the block's time has been spent by the block.
		// The shell may write an end line's leading newline apart from the
		// rest, and the streams interleave in the combined output: each end
		// line is found by its own text.
		end := docShellEnd + path + "\n"
		through := func() bool {
			return strings.Count(s.out.String()[start:], end) == 2 && strings.Contains(s.std.String()[stdStart:], end)
		}
		strip := func(text string) string {
			return strings.ReplaceAll(strings.ReplaceAll(text, "\n"+end, ""), end, "")
		}
		for wait := time.Now().Add(docShellDrain); !through(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(wait) {
				output, stdout = printed()
				return output, stdout, fmt.Errorf("the block ended, but its output did not come through within %s", docShellDrain)
			}
		}
		output, stdout = printed()
		return strip(output), strip(stdout), nil
	case <-s.done:
		output, stdout = printed()
		return output, stdout, fmt.Errorf("the shell ended (%v): a command of the block exited it", s.err)
	case <-deadline.C:
		s.stop()
		output, stdout = printed()
		return output, stdout, fmt.Errorf("the block did not end within %s: stopped", timeout)
	}
}

// close ends the shell: its input closed, it exits; past a deadline it is
// stopped. Whatever its blocks left in its process group is killed.
func (s *docShell) close() {
	s.feed.Close()
	select {
	case <-s.done:
	case <-time.After(docShellGrace):
		s.stop()
	}
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
}

// stop sends SIGTERM to the shell's process group, then SIGKILL after the
// grace, and waits for the shell.
func (s *docShell) stop() {
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(docShellGrace):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	}
}
