package proctree

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// startSleep starts a process that sleeps for the test, with env, in a
// session of its own when setsid is set, and returns its pid.
func startSleep(t *testing.T, setsid bool, env ...string) int {
	cmd := exec.Command("sleep", "60")
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: setsid}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

// TestAllocationFindsSessionAndMarker: one pass finds what InSession and
// WithEnv find together (a process of the session, one that left it but
// carries the marker), and reads no environment of a process older than
// the allocation: one carrying the marker that started before its leader
// is not the allocation's.
func TestAllocationFindsSessionAndMarker(t *testing.T) {
	marker := "m-" + strconv.Itoa(os.Getpid())
	older, leader, left, other, since := markedProcesses(t, "ABBENCH_ALLOCATION", marker)
	got := Allocation(leader, since, "ABBENCH_ALLOCATION", marker)
	for _, pid := range []int{leader, left} {
		if !slices.Contains(got, pid) {
			t.Errorf("pid %d is the allocation's, but was not found: %v", pid, got)
		}
	}
	for _, pid := range []int{older, other} {
		if slices.Contains(got, pid) {
			t.Errorf("pid %d is not the allocation's, but was found: %v", pid, got)
		}
	}
	// Without a start time, every environment is read: the older one too.
	all := Allocation(leader, 0, "ABBENCH_ALLOCATION", marker)
	want := InSession(leader)
	for _, p := range WithEnv("ABBENCH_ALLOCATION", marker) {
		if !slices.Contains(want, p) {
			want = append(want, p)
		}
	}
	slices.Sort(all)
	slices.Sort(want)
	if !slices.Equal(all, want) || !slices.Contains(all, older) {
		t.Errorf("since 0: %v, want InSession and WithEnv together: %v (with %d)", all, want, older)
	}
}

func BenchmarkAllocation(b *testing.B) {
	for b.Loop() {
		Allocation(1, StartTime(os.Getpid()), "ABBENCH_ALLOCATION", "none")
	}
}

func BenchmarkInSessionAndWithEnv(b *testing.B) {
	for b.Loop() {
		InSession(1)
		WithEnv("ABBENCH_ALLOCATION", "none")
	}
}

// TestWithEnvSinceReadsOnlyLaterProcesses: a process that carries the
// marker and started at or after since is found, also one that left the
// session; one that started before (it cannot have inherited the marker
// from the run) is not; nor one with another marker, nor a process of
// the session without the marker (no session is matched).
func TestWithEnvSinceReadsOnlyLaterProcesses(t *testing.T) {
	marker := "s-" + strconv.Itoa(os.Getpid())
	older, leader, later, other, since := markedProcesses(t, "ABBENCH_TOKEN", marker)
	got := WithEnvSince("ABBENCH_TOKEN", marker, since)
	if !slices.Equal(got, []int{later}) {
		t.Errorf("found %v, want only pid %d (older %d, leader %d, other marker %d)", got, later, older, leader, other)
	}
	if all := WithEnvSince("ABBENCH_TOKEN", marker, 0); !slices.Contains(all, older) || !slices.Contains(all, later) {
		t.Errorf("since 0 found %v, want %d and %d", all, older, later)
	}
}

// markedProcesses starts, each in a session of its own: older, carrying
// key=marker; a clock tick later the leader, carrying nothing; then later,
// carrying key=marker, and other, carrying another marker. since is the
// leader's start.
func markedProcesses(t *testing.T, key, marker string) (older, leader, later, other int, since uint64) {
	older = startSleep(t, true, key+"="+marker)
	time.Sleep(30 * time.Millisecond) // a clock tick (10 ms) or more between them
	leader = startSleep(t, true)
	later = startSleep(t, true, "A=1", key+"="+marker)
	other = startSleep(t, true, key+"="+marker+"2")
	if since = StartTime(leader); since == 0 {
		t.Fatal("no start time for the leader")
	}
	return older, leader, later, other, since
}
