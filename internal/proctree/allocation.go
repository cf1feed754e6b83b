package proctree

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// Allocation lists the live processes of session sid, and those outside
// it whose environment holds key=value (as WithEnv), in one pass over
// /proc. Only a process that started at or after since (clock ticks after
// boot, StartTime of the session's leader; 0: any) can have inherited the
// entry, so only such a one's environment is read: on a machine of
// hundreds of processes, reading every environment (two passes, WithEnv
// and InSession) took tens of milliseconds after each run.
func Allocation(sid int, since uint64, key, value string) []int {
	return scan(strconv.Itoa(sid), since, key, value)
}

// WithEnvSince is WithEnv for a marker first given to a process that
// started at since (clock ticks after boot, StartTime; 0: any): only
// processes started at or after it can carry the marker, so only their
// environments are read, in one pass over /proc. A guard sweeping by
// its controller's token reads a handful of environments, not every
// process's, while the next run starts beside it.
func WithEnvSince(key, value string, since uint64) []int {
	return scan("", since, key, value)
}

// scan is Allocation's pass over /proc; session "" matches none.
func scan(session string, since uint64, key, value string) []int {
	entry := []byte(key + "=" + value)
	entries, _ := os.ReadDir("/proc")
	buf := make([]byte, 4096)
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f := bytes.Fields(afterName(readProc(e.Name(), "stat", &buf)))
		if len(f) <= startField || string(f[0]) == "Z" {
			continue // gone, or a zombie: it holds nothing
		}
		if session != "" && string(f[3]) == session {
			pids = append(pids, pid)
			continue
		}
		if started, err := strconv.ParseUint(string(f[startField]), 10, 64); err == nil && started < since {
			continue
		}
		if hasEntry(readProc(e.Name(), "environ", &buf), entry) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// startField is the index of starttime among statFields.
const startField = 19

// StartTime is when pid started, in clock ticks after boot (0 when it
// cannot be read: Allocation then reads every environment).
func StartTime(pid int) uint64 {
	f := statFields(strconv.Itoa(pid))
	if len(f) <= startField {
		return 0
	}
	t, _ := strconv.ParseUint(f[startField], 10, 64)
	return t
}

// afterName is what /proc/PID/stat holds after the command name.
func afterName(stat []byte) []byte {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return nil
	}
	return stat[i+1:]
}

// readProc reads /proc/PID/NAME whole into *buf (grown as needed); nil
// when it cannot be read.
func readProc(pid, name string, buf *[]byte) []byte {
	fd, err := syscall.Open("/proc/"+pid+"/"+name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer func() { _ = syscall.Close(fd) }() // read only: a close error loses nothing
	n := 0
	for {
		if n == len(*buf) {
			*buf = append(*buf, make([]byte, len(*buf))...)
		}
		k, err := syscall.Read(fd, (*buf)[n:])
		if err != nil {
			return nil
		}
		if k == 0 {
			return (*buf)[:n]
		}
		n += k
	}
}
