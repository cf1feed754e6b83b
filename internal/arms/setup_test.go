package arms

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/rundir"
)

func TestNewControllerCompletesItsOptionsAndMakesNothing(t *testing.T) {
	s := loadScenario(t, unitScenario)
	t.Chdir(t.TempDir())
	bin := t.TempDir()
	self := filepath.Join(bin, "abbench")
	c, err := newController(s, "b", Options{Out: "out", Self: self})
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if c.opts.Token == "" || c.opts.Out != filepath.Join(wd, "out") || c.dir != filepath.Join(wd, "out", c.opts.Token) {
		t.Fatalf("token %q, out %q, attempt %q: want a token and absolute paths", c.opts.Token, c.opts.Out, c.dir)
	}
	if len(c.opts.Inherited) == 0 {
		t.Fatal("no inherited environment: want this process's")
	}
	if _, err := os.Stat("out"); !os.IsNotExist(err) {
		t.Fatalf("newController made the output directory (%v)", err)
	}
	if want := []string{self, "rank-exec", "--"}; !slices.Equal(c.wrapper, want) {
		t.Fatalf("wrapper %v, want %v", c.wrapper, want)
	}
	// abbench-rank beside abbench wraps the ranks, once it is executable.
	fast := filepath.Join(bin, "abbench-rank")
	if err := os.WriteFile(fast, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if c, _ = newController(s, "b", Options{Out: "out", Self: self}); c.wrapper[0] != self {
		t.Fatalf("a non-executable abbench-rank wraps the ranks: %v", c.wrapper)
	}
	if err := os.Chmod(fast, 0o755); err != nil {
		t.Fatal(err)
	}
	if c, _ = newController(s, "b", Options{Out: "out", Self: self}); !slices.Equal(c.wrapper, []string{fast, "--"}) {
		t.Fatalf("wrapper %v, want abbench-rank", c.wrapper)
	}
	if _, err := newController(s, "c", Options{Out: "out"}); err == nil || !strings.Contains(err.Error(), "(arms: a, b)") {
		t.Fatalf("an arm not in the scenario: %v", err)
	}
}

func TestClaimRunDirNotesTheAttemptUntilReleased(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	c := bareController(t, unitScenario)
	release, err := c.claimRunDir()
	if err != nil {
		t.Fatal(err)
	}
	note := filepath.Join(LiveDir(), noteName(c.opts.Token))
	if _, err := os.Stat(note); err != nil {
		t.Fatalf("no note of the running attempt: %v", err)
	}
	again := *c
	if _, err := again.claimRunDir(); err == nil || !strings.Contains(err.Error(), "run directory for token "+c.opts.Token) {
		t.Fatalf("a second claim of the attempt: %v", err)
	}
	if _, err := os.Stat(note); err != nil {
		t.Fatalf("a refused claim removed the note: %v", err)
	}
	release()
	if _, err := os.Stat(note); !os.IsNotExist(err) {
		t.Fatalf("the note outlived its release: %v", err)
	}
}

func TestPlaceRanksRefusesAnUnknownWay(t *testing.T) {
	c := bareController(t, unitScenario)
	if err := c.placeRanks(); err != nil || c.opts.Ranks != RanksLocal {
		t.Fatalf("no way given: %v, ranks %q; want local", err, c.opts.Ranks)
	}
	c.opts.Ranks = "ssh"
	if err := c.placeRanks(); err == nil || !strings.Contains(err.Error(), "choose local, srun or kubernetes") {
		t.Fatalf("ranks ssh: %v", err)
	}
	t.Setenv("SLURM_JOB_NODELIST", "")
	c.opts.Ranks = RanksSrun
	if err := c.placeRanks(); err == nil || !strings.Contains(err.Error(), "SLURM_JOB_NODELIST is not set") {
		t.Fatalf("srun outside an allocation: %v", err)
	}
	t.Setenv("ABBENCH_KUBERNETES_POD", "")
	c.opts.Ranks = RanksKubernetes
	if err := c.placeRanks(); err == nil || !strings.Contains(err.Error(), "ABBENCH_KUBERNETES_NAMESPACE and ABBENCH_KUBERNETES_POD are not set") {
		t.Fatalf("kubernetes outside a pod: %v", err)
	}
}

func TestScratchIsPrivateUnlessARoleRunsAsAnotherUser(t *testing.T) {
	s := loadScenario(t, unitScenario)
	token := NewToken()
	t.Cleanup(func() { os.RemoveAll(rundir.Scratch(token)) })
	if err := makeScratch(s, token); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(rundir.Scratch(token)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("scratch %v %v, want mode 0700", fi, err)
	}
	s.Roles[1].User = "nobody"
	err := makeScratch(s, token)
	if os.Geteuid() != 0 {
		if err == nil || !strings.Contains(err.Error(), "must run as root") {
			t.Fatalf("a role as another user, not root: %v", err)
		}
		return
	}
	if fi, _ := os.Stat(rundir.Scratch(token)); err != nil || fi.Mode()&os.ModeSticky == 0 || fi.Mode().Perm() != 0o777 {
		t.Fatalf("scratch for another user: %v %v, want mode 1777", fi, err)
	}
}
