package arms

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/abbench/abbench/internal/arms/rankwrap"
	"github.com/abbench/abbench/internal/rundir"
)

// abandoned is an attempt whose controller died while it ran: its status
// says running, a process of its run is alive, and the pid its note names
// is gone.
type abandoned struct {
	token, attempt string
	orphan         *exec.Cmd
	note           liveEntry
}

func abandon(t *testing.T, token string) *abandoned {
	t.Helper()
	a := &abandoned{token: token, attempt: filepath.Join(t.TempDir(), token)}
	if err := os.Mkdir(a.attempt, 0o755); err != nil {
		t.Fatal(err)
	}
	rundir.WriteStatus(a.attempt, &rundir.Status{Arm: "a", Token: token, Dir: a.attempt, State: rundir.StateRunning, Phase: "client"})
	a.orphan = exec.Command("sleep", "300")
	a.orphan.Env = append(os.Environ(), rankwrap.EnvToken+"="+token)
	a.orphan.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := a.orphan.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { a.orphan.Wait(); close(done) }()
	t.Cleanup(func() { a.orphan.Process.Kill(); <-done })
	dead := exec.Command("true")
	dead.Run()
	a.note = liveEntry{Token: token, Attempt: a.attempt, PID: dead.Process.Pid, StartTicks: "1", livePlace: herePlace()}
	return a
}

// untouched fails unless the attempt still runs and its process lives.
func (a *abandoned) untouched(t *testing.T, why string) {
	t.Helper()
	if !slices.Contains(Survivors(a.token), a.orphan.Process.Pid) {
		t.Errorf("%s: the run's process %d was killed", why, a.orphan.Process.Pid)
	}
	if st, _ := rundir.ReadStatus(a.attempt); st == nil || st.State != rundir.StateRunning || len(st.Reasons) > 0 {
		t.Errorf("%s: its status was rewritten (state %s, reasons %s)", why, st.State, codes(st))
	}
}

// plant writes a note into the registry, as a controller would.
func plant(t *testing.T, name string, e liveEntry) string {
	t.Helper()
	if err := os.MkdirAll(LiveDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(e)
	path := filepath.Join(LiveDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func stateOf(res *Result) string {
	if res == nil {
		return "none"
	}
	return res.Status.State
}

func sweepDead(t *testing.T) []string {
	t.Helper()
	swept, err := SweepDead()
	if err != nil {
		t.Fatal(err)
	}
	return swept
}

// An attempt whose controller and guard both died (a kill of the whole
// session) is found by the next abbench: its processes are stopped by
// token and the attempt is marked interrupted.
func TestSweepDeadFindsAbandonedAttempts(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	a := abandon(t, "dead-"+strconv.Itoa(os.Getpid()))
	note := plant(t, noteName(a.token), a.note)
	// A live controller's note is left alone.
	alive := plant(t, noteName("alive"), liveEntry{Token: "alive", Attempt: t.TempDir(), PID: os.Getpid(), StartTicks: startTicks(os.Getpid()), livePlace: herePlace()})
	// A note of a dead controller whose attempt is gone (and left nothing)
	// is removed without a word.
	gone := a.note
	gone.Token, gone.Attempt = "stale-"+a.token, filepath.Join(t.TempDir(), "stale-"+a.token)
	stale := plant(t, noteName(gone.Token), gone)

	swept := sweepDead(t)
	for _, removed := range []string{stale, note} {
		if _, err := os.Stat(removed); err == nil {
			t.Errorf("note %s was kept", removed)
		}
	}
	if len(swept) != 1 || swept[0] != a.attempt {
		t.Fatalf("swept %v, want [%s]", swept, a.attempt)
	}
	if left := Survivors(a.token); len(left) > 0 {
		t.Fatalf("processes %v of the dead run are alive", left)
	}
	st, _ := rundir.ReadStatus(a.attempt)
	if st.State != rundir.StateInterrupted || codes(st) != "interrupted" {
		t.Fatalf("status %s %s", st.State, codes(st))
	}
	if _, err := os.Stat(alive); err != nil {
		t.Fatal("the live controller's note was removed")
	}
}

// A note names its controller by a pid, which means something only in its
// pid namespace on its host as booted: with a temporary directory shared by
// a host and its containers, a live controller elsewhere would look dead.
// Such a note is never judged: its run is not touched and the note stays.
func TestSweepDeadLeavesNotesOfOtherNamespacesAndHosts(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	for _, c := range []struct {
		name  string
		place func(*livePlace)
	}{
		{"another pid namespace", func(p *livePlace) { p.PIDNamespace = "pid:[1]" }},
		{"another boot", func(p *livePlace) { p.BootID = "00000000-0000-0000-0000-000000000000" }},
		{"another host", func(p *livePlace) { p.Host = "elsewhere." + p.Host }},
		{"a note that says nothing of its place", func(p *livePlace) { *p = livePlace{} }},
	} {
		a := abandon(t, "elsewhere-"+strings.ReplaceAll(c.name, " ", "-")+"-"+strconv.Itoa(os.Getpid()))
		c.place(&a.note.livePlace)
		note := plant(t, noteName(a.token), a.note)
		if swept := sweepDead(t); len(swept) > 0 {
			t.Errorf("%s: swept %v", c.name, swept)
		}
		a.untouched(t, c.name)
		if _, err := os.Stat(note); err != nil {
			t.Errorf("%s: the note was removed", c.name)
		}
	}
}

// A note acts only on an attempt its controller could have made: a
// directory named by the note's token, owned by this user, whose status
// names the same token. A note naming another attempt (or a status of
// another run) kills nothing and rewrites nothing.
func TestSweepDeadActsOnlyOnTheNotesOwnAttempt(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	victim := abandon(t, "victim-"+strconv.Itoa(os.Getpid()))
	other := victim.note
	other.Token = "other-" + victim.token // the victim's attempt, under another token
	plant(t, noteName(other.Token), other)
	renamed := victim.note
	renamed.Attempt = filepath.Dir(victim.attempt) // its token, but not its directory
	plant(t, "renamed.json", renamed)
	if swept := sweepDead(t); len(swept) > 0 {
		t.Errorf("swept %v", swept)
	}
	victim.untouched(t, "a note of another attempt")
}

// Notes are named by a hash of their token: a listing of the registry
// reveals no running run's token.
func TestNotesRevealNoToken(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	live, err := openLive()
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	token := NewToken()
	unnote, err := noteLive(live, token, filepath.Join(t.TempDir(), token))
	if err != nil {
		t.Fatal(err)
	}
	names, _ := os.ReadDir(LiveDir())
	if len(names) != 1 || strings.Contains(names[0].Name(), token) || strings.Contains(names[0].Name(), token[len(token)-12:]) {
		t.Fatalf("registry lists %v for token %s", names, token)
	}
	if fi, _ := names[0].Info(); fi.Mode().Perm() != 0o600 {
		t.Errorf("note mode %v", fi.Mode())
	}
	unnote()
	if names, _ := os.ReadDir(LiveDir()); len(names) != 0 {
		t.Errorf("the note outlived its run: %v", names)
	}
}

// A registry another user could write is refused, by the sweep and by a
// run alike, naming the directory and the fix; nothing in it is acted on.
func TestRegistryOthersCanWriteIsRefused(t *testing.T) {
	base := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", base)
	dir := filepath.Dir(LiveDir())
	a := abandon(t, "open-"+strconv.Itoa(os.Getpid()))
	plant(t, noteName(a.token), a.note)
	for _, c := range []struct {
		name, refused, fix string
		make               func()
	}{
		{"world-writable", dir, "chmod 700 " + dir, func() { os.Chmod(dir, 0o777) }},
		{"group-writable registry", LiveDir(), "chmod 700 " + LiveDir(), func() { os.Chmod(dir, 0o700); os.Chmod(LiveDir(), 0o770) }},
		{"a symbolic link", dir, "rm " + dir, func() {
			os.Chmod(LiveDir(), 0o700)
			os.Rename(dir, dir+".real")
			os.Symlink(dir+".real", dir)
		}},
	} {
		c.make()
		swept, err := SweepDead()
		if err == nil || !strings.Contains(err.Error(), c.refused+" ") || !strings.Contains(err.Error(), c.fix) {
			t.Errorf("%s: sweep: swept %v, error %v, want it to name %s and %q", c.name, swept, err, c.refused, c.fix)
		}
		a.untouched(t, c.name)
		s := loadScenario(t, envScenario)
		if res, err := Run(context.Background(), s, "plain", Options{Out: t.TempDir()}); err == nil || !strings.Contains(err.Error(), c.refused) {
			t.Errorf("%s: a run started (error %v, status %s)", c.name, err, stateOf(res))
		}
	}
}

// Another local user who makes the registry's directory before this user
// does (the temporary directory is everyone's), even world-writable, and
// plants a note naming a running run, must not get abbench to kill that
// run: abbench refuses to start, naming the directory, and the run is not
// touched. It needs root (to be root and another user); CI runs as root.
func TestRegistryPlantedByAnotherUserIsRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("this test plants files as another user and must run as root in CI")
		}
		t.Skip("planting a registry as another user needs root: run the tests as root to cover it")
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Fatalf("user nobody: %v", err)
	}
	uid, _ := strconv.Atoi(nobody.Uid)
	gid, _ := strconv.Atoi(nobody.Gid)
	// A temporary directory like /tmp: everyone may create in it.
	base, err := os.MkdirTemp("", "abbench-shared-tmp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o777|os.ModeSticky)
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("TMPDIR", base)
	// root's running run, whose token the other user has learnt.
	a := abandon(t, "running-"+strconv.Itoa(os.Getpid()))
	note, _ := json.Marshal(a.note)
	dir := filepath.Dir(LiveDir())
	plantAs := exec.Command("sh", "-c", `umask 0 && mkdir -m 777 "$1" "$1/live" && for n in "$2" "$3"; do printf '%s' "$4" > "$1/live/$n"; done`,
		"plant", dir, a.token+".json", noteName(a.token), string(note))
	plantAs.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	if out, err := plantAs.CombinedOutput(); err != nil {
		t.Fatalf("planting as nobody: %v: %s", err, out)
	}
	if fi, err := os.Stat(dir); err != nil || int(fi.Sys().(*syscall.Stat_t).Uid) != uid {
		t.Fatalf("the planted registry %s is not nobody's: %v", dir, err)
	}

	swept, err := SweepDead()
	want := fmt.Sprintf("%s is owned by uid %d", dir, uid)
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "rm -r "+dir) {
		t.Errorf("the sweep did not refuse the planted registry: swept %v, error %v (want %q)", swept, err, want)
	}
	a.untouched(t, "a note planted by another user")
	s := loadScenario(t, envScenario)
	if res, err := Run(context.Background(), s, "plain", Options{Out: t.TempDir()}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a run started in a registry another user made (error %v, status %s)", err, stateOf(res))
	}
}
