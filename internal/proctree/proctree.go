// Package proctree finds processes by what they cannot shed: the session they
// were started in, or a marker variable in the environment they inherited.
// A process that calls setsid leaves its session and process group, but
// keeps its environment, so a run's marker finds every process it started.
// Zombies are never listed: they hold nothing and their parent reaps them.
package proctree

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// WithEnv lists live processes whose environment holds key=value exactly:
// as a whole entry, so neither FOO_KEY=value nor key=value2 matches.
func WithEnv(key, value string) []int {
	entry := []byte(key + "=" + value)
	return find(func(pid string) bool {
		env, err := os.ReadFile(filepath.Join("/proc", pid, "environ"))
		return err == nil && hasEntry(env, entry)
	})
}

// hasEntry says whether environ, NUL-separated entries, holds entry.
func hasEntry(environ, entry []byte) bool {
	for len(environ) > 0 {
		e, rest, _ := bytes.Cut(environ, []byte{0})
		if bytes.Equal(e, entry) {
			return true
		}
		environ = rest
	}
	return false
}

// InSession lists live processes of session sid.
func InSession(sid int) []int {
	return find(func(pid string) bool {
		f := statFields(pid)
		return len(f) > 3 && f[3] == strconv.Itoa(sid)
	})
}

// Kill sends SIGKILL to each pid except this process; it returns how many
// it signalled.
func Kill(pids []int) int {
	n := 0
	for _, pid := range pids {
		if pid != os.Getpid() && syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}

func find(match func(pid string) bool) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !match(e.Name()) {
			continue
		}
		if f := statFields(e.Name()); len(f) > 0 && f[0] == "Z" {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// statFields are the fields of /proc/PID/stat after the command name:
// state, ppid, pgrp, session, ...
func statFields(pid string) []string {
	stat, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(stat[i+1:]))
}
