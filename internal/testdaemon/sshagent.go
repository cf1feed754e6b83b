package testdaemon

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/crypto/ssh/agent"

	"github.com/abbench/abbench/internal/readonly"
)

// AgentWithin bounds the wait for a started ssh-agent to answer; generous,
// since a loaded CI machine with the race detector is slow to start one.
const AgentWithin = 30 * time.Second

// StartSSHAgent starts a real ssh-agent for the test, waits until it answers
// a request on its socket, points SSH_AUTH_SOCK at it and stops it when the
// test ends. Without ssh-agent the test is skipped, or fails in CI (CI set).
func StartSSHAgent(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("ssh-agent"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("ssh-agent (openssh-client) is missing; .ci/run installs it")
		}
		t.Skip("ssh-agent not installed (Debian openssh-client)")
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	cmd := exec.Command("ssh-agent", "-D", "-a", sock)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting ssh-agent: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // an agent that exited already is fine
		if err := <-exited; err != nil {
			t.Logf("ssh-agent ended: %v", err) // killed, as it should be
		}
	})
	err := Ready("ssh-agent on "+sock, AgentWithin, func() error {
		select {
		case err := <-exited:
			exited <- err // for the cleanup
			return fmt.Errorf("ssh-agent %w (%v): %s", ErrExited, err, bytes.TrimSpace(stderr.Bytes()))
		default:
		}
		return AgentAnswers(sock)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSH_AUTH_SOCK", sock)
	return sock
}

// AgentAnswers is one round trip of the agent protocol on sock: it lists
// the agent's keys.
func AgentAnswers(sock string) error {
	c, err := net.DialTimeout("unix", sock, time.Second)
	if err != nil {
		return err
	}
	defer readonly.Close(c)
	if err := c.SetDeadline(time.Now().Add(5 * time.Second)); err != nil {
		return err
	}
	if _, err := agent.NewClient(c).List(); err != nil {
		return fmt.Errorf("listing the keys of the agent on %s: %w", sock, err)
	}
	return nil
}
