//go:build linux

package testdaemon

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh/agent"
)

// boundNotListening is the moment that made ssh-add fail in CI: the agent's
// socket file exists (bound) but nothing listens on it yet, so a connection
// is refused. listen makes it accept and serve an empty keyring.
func boundNotListening(t *testing.T) (sock string, listen func()) {
	t.Helper()
	sock = filepath.Join(t.TempDir(), "agent.sock")
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
		syscall.Close(fd)
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fd), sock)
	t.Cleanup(func() { f.Close() })
	return sock, func() {
		if err := syscall.Listen(fd, 8); err != nil {
			t.Error(err)
			return
		}
		ln, err := net.FileListener(f)
		if err != nil {
			t.Error(err)
			return
		}
		t.Cleanup(func() { ln.Close() })
		keyring := agent.NewKeyring()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go func() { agent.ServeAgent(keyring, c); c.Close() }()
			}
		}()
	}
}

func TestAgentAnswersOnlyOnceItListens(t *testing.T) {
	sock, listen := boundNotListening(t)
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("the socket file should exist before the agent listens: %v", err)
	}
	if err := AgentAnswers(sock); err == nil {
		t.Fatal("an agent whose socket exists but does not listen counted as answering")
	}
	listen()
	if err := AgentAnswers(sock); err != nil {
		t.Fatalf("a listening agent did not answer: %v", err)
	}
}

// A wait that starts while the socket exists but refuses connections
// returns only once the agent listens, and then ssh-add (the client that
// was refused in CI) reaches it.
func TestReadyWaitsForTheAgentToListen(t *testing.T) {
	sock, listen := boundNotListening(t)
	const delay = 300 * time.Millisecond
	listened := make(chan time.Time, 1)
	go func() {
		time.Sleep(delay)
		listen()
		listened <- time.Now()
	}()
	err := Ready("fake agent", 10*time.Second, func() error { return AgentAnswers(sock) })
	returned := time.Now()
	at := <-listened
	if err != nil {
		t.Fatal(err)
	}
	if returned.Before(at) {
		t.Fatalf("Ready returned %s before the agent listened", at.Sub(returned))
	}
	if _, err := exec.LookPath("ssh-add"); err == nil {
		sshAddReaches(t, sock)
	}
}

// sshAddReaches runs ssh-add -l against the agent on sock: exit status 0
// (keys listed) or 1 (none) is an answer, 2 is no agent reached.
func sshAddReaches(t *testing.T, sock string) {
	t.Helper()
	cmd := exec.Command("ssh-add", "-l")
	cmd.Env = append(os.Environ(), "SSH_AUTH_SOCK="+sock)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && (!errors.As(err, &ee) || ee.ExitCode() != 1) {
		t.Fatalf("ssh-add -l on %s: %v %s", sock, err, out)
	}
}

func TestReadyNamesWhatDidNotAnswer(t *testing.T) {
	refused := errors.New("connection refused")
	start := time.Now()
	err := Ready("redis-server on 6379", 100*time.Millisecond, func() error { return refused })
	if err == nil || !errors.Is(err, refused) || !strings.Contains(err.Error(), "redis-server on 6379 did not become ready") {
		t.Fatalf("err %v, want one naming the daemon and wrapping its last answer", err)
	}
	if waited := time.Since(start); waited < 100*time.Millisecond {
		t.Fatalf("gave up after %s, before its deadline", waited)
	}
}

func TestReadyStopsWhenTheDaemonExited(t *testing.T) {
	start := time.Now()
	calls := 0
	err := Ready("ssh-agent", time.Minute, func() error { calls++; return ErrExited })
	if !errors.Is(err, ErrExited) || calls != 1 {
		t.Fatalf("err %v after %d requests, want ErrExited after 1", err, calls)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Fatalf("waited %s for a daemon that exited", waited)
	}
}

func TestStartSSHAgent(t *testing.T) {
	sock := StartSSHAgent(t)
	if os.Getenv("SSH_AUTH_SOCK") != sock {
		t.Fatalf("SSH_AUTH_SOCK %q, want %q", os.Getenv("SSH_AUTH_SOCK"), sock)
	}
	sshAddReaches(t, sock)
}
