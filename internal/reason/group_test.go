package reason

import (
	"slices"
	"strings"
	"testing"
)

func codes(rs []Reason) string {
	var c []string
	for _, r := range rs {
		s := string(r.Code)
		if len(r.Consequences) > 0 {
			var sub []string
			for _, x := range r.Consequences {
				sub = append(sub, string(x.Code))
			}
			s += "{" + strings.Join(sub, ",") + "}"
		}
		c = append(c, s)
	}
	return strings.Join(c, " ")
}

// A rank in the wrong mode stops the run before its client: the report's
// six reasons become one root cause with its consequences under it, and
// the mismatch said three times counts once.
func TestGroupRootCauseFirst(t *testing.T) {
	rs := []Reason{
		New(RequestsFailed, "no record"),
		New(ArmModeMismatch, "ctx rank 1 logged no mode line before the client").At("a", "ctx", 1),
		New(ArmModeMismatch, "ctx rank 1 ran MODE=0").At("a", "ctx", 1),
		New(ThroughputInvalid, "no record"),
		New(UncleanShutdown, "rank 0 exited 1 at teardown").At("a", "ctx", 0),
		New(ArmModeMismatch, "ctx rank 1 mode at teardown").At("a", "ctx", 1),
		New(ConfigMismatch, "another matched digest"),
	}
	g := Group(rs)
	if got := codes(g); got != "arm-mode-mismatch{requests-failed,throughput-invalid,unclean-shutdown} config-mismatch" {
		t.Fatalf("grouped %s", got)
	}
	if g[0].Repeats != 2 {
		t.Fatalf("repeats %d, want 2", g[0].Repeats)
	}
	// A run that was not stopped keeps every reason a root cause.
	plain := []Reason{New(FactCount, "ctx rank 3: 255/256 terminal commits"), New(ThroughputInvalid, "lacks its flag")}
	if got := codes(Group(plain)); got != "fact-count throughput-invalid" {
		t.Fatalf("unstopped run grouped %s", got)
	}
}

// A setup hook that failed started no role: the ranks it never started
// and their modes never measured are its consequences, not root causes
// of their own beside it.
func TestGroupSetupFailedHoldsTheRanksThatNeverRan(t *testing.T) {
	rs := []Reason{
		New(SetupFailed, "setup hook 1 exited with status 7; no role was started").At("a", "setup", 0),
		New(ThroughputInvalid, "no record"),
		New(RankMissing, "ctx rank 0 never started").At("a", "ctx", 0),
		New(RankMissing, "ctx rank 1 never started").At("a", "ctx", 1),
		New(ArmModeMismatch, "only 0 of 2 ctx ranks have a measured mode"),
	}
	if got := codes(Group(rs)); got != "setup-failed{throughput-invalid,rank-missing,rank-missing,arm-mode-mismatch}" {
		t.Fatalf("grouped %s", got)
	}
}

// A run stopped before its client has no GPU samples and no scrapes: the
// telemetry and server metrics it could not read are consequences of the
// stop, not root causes beside it.
func TestGroupStoppedRunHoldsItsMissingTelemetry(t *testing.T) {
	rs := []Reason{
		New(TelemetryMissing, "telemetry.gpu is on, but the run has no GPU samples"),
		New(RankExited, "ctx rank 0 exited with status 3").At("a", "ctx", 0),
		New(ServerMetric, "no scrape of the servers' metrics was recorded"),
	}
	if got := codes(Group(rs)); got != "rank-exited{telemetry-missing,server-metric}" {
		t.Fatalf("grouped %s", got)
	}
}

// The same fact in several runs is said once, naming every run, its
// consequences once each; a fact of another rank or wording stays apart.
func TestMergeSaysAFactOfManyRunsOnce(t *testing.T) {
	rank := func(r Reason, n int) Reason { return r.At("b", "ctx", n) }
	mode := func(run string, n int) Reason {
		r := rank(New(ArmModeMismatch, "ctx rank %d ran T=1, but arm b sets \"0\"", n), n)
		r.Runs = []string{run}
		r.Consequences = []Reason{{Code: ThroughputInvalid, Arm: "b", Detail: "no record", Runs: []string{run}}}
		return r
	}
	var rs []Reason
	for _, run := range []string{"runs/2-b", "runs/3-b", "runs/5-b", "runs/7-b"} {
		rs = append(rs, mode(run, 0), mode(run, 1))
	}
	other := New(ConfigMismatch, "the matched digests differ")
	rs = append(rs, other, other)
	got := Merge(rs)
	if len(got) != 3 {
		t.Fatalf("%d reasons, want 3 (rank 0, rank 1, the digests): %v", len(got), got)
	}
	if want := []string{"runs/2-b", "runs/3-b", "runs/5-b", "runs/7-b"}; !slices.Equal(got[0].Runs, want) || !slices.Equal(got[1].Runs, want) {
		t.Errorf("runs %v and %v, want %v each", got[0].Runs, got[1].Runs, want)
	}
	if c := got[0].Consequences; len(c) != 1 || len(c[0].Runs) != 4 {
		t.Errorf("consequences %v: want one, of the 4 runs", c)
	}
	if s := got[0].String(); !strings.HasSuffix(s, `(4 runs: runs/2-b, runs/3-b, runs/5-b and 1 more)`) || !strings.Contains(s, "rank 0") {
		t.Errorf("said %q", s)
	}
	if s := rs[0].String(); !strings.HasSuffix(s, `sets "0" (run runs/2-b)`) {
		t.Errorf("one run's reason said %q", s)
	}
	if got[2].Code != ConfigMismatch || len(got[2].Runs) != 0 {
		t.Errorf("the third reason is %v", got[2])
	}
}

// A client that had not one request served (a wrong port) is the root
// cause of its run: the record's figures, the prompts the ranks served
// and their activation counts only say that nothing was served, and are
// its consequences. A run that had some requests served keeps each reason
// a root cause, and a stopped run keeps its stop first.
func TestGroupNothingServedHoldsWhatServingWouldHaveLeft(t *testing.T) {
	none := New(RequestsFailed, "0 of 256 requests succeeded (256 failed)")
	none.NothingServed = true
	rest := []Reason{
		New(ThroughputInvalid, "output_throughput 0 is not plausible"),
		New(WorkloadMismatch, "the client sent 256 prompts, the ranks served 0"),
		New(FactCount, "ctx rank 0: 0/256 activations").At("a", "ctx", 0),
		New(FactCount, "ctx rank 1: 0/256 activations").At("a", "ctx", 1),
		New(ConfigMismatch, "another matched digest"),
	}
	if got := codes(Group(append([]Reason{rest[0], none}, rest[1:]...))); got != "requests-failed{throughput-invalid,workload-mismatch,fact-count,fact-count} config-mismatch" {
		t.Fatalf("nothing served grouped %s", got)
	}
	some := New(RequestsFailed, "200 of 256 requests succeeded (56 failed)")
	if got := codes(Group(append([]Reason{some}, rest...))); got != "requests-failed throughput-invalid workload-mismatch fact-count fact-count config-mismatch" {
		t.Fatalf("some served grouped %s", got)
	}
	stop := New(RankExited, "ctx rank 0 exited with status 3").At("a", "ctx", 0)
	if got := codes(Group([]Reason{none, rest[0], stop})); got != "rank-exited{requests-failed,throughput-invalid}" {
		t.Fatalf("a stopped run with nothing served grouped %s", got)
	}
}

// A rank that exited stops the run: the other ranks, stopped by abbench
// before they logged a mode or registered, say only that (Unmeasured,
// rank-missing) and are its consequences, where they were root causes of
// their own beside it. A mode of another arm stays a cause; with nothing
// else stopping the run an unlogged mode is its root; and a rank that
// never registered while a deadline waited for it is the root, the
// deadline its consequence, another such rank a cause of its own.
func TestGroupRanksThatNeverGotToLogFollowTheStop(t *testing.T) {
	unlogged := func(rank int) Reason {
		r := New(ArmModeMismatch, "ctx rank %d logged no mode line in its measured lifecycle", rank).At("a", "ctx", rank)
		r.Unmeasured = true
		return r
	}
	exited := New(RankExited, "ctx rank 3 exited with status 127").At("a", "ctx", 3)
	missing := New(RankMissing, "ctx rank 2 never started").At("a", "ctx", 2)
	wrong := New(ArmModeMismatch, "ctx rank 1 ran MODE=0").At("a", "ctx", 1)
	for _, c := range []struct {
		rs   []Reason
		want string
	}{
		{[]Reason{unlogged(0), unlogged(1), missing, exited}, "rank-exited{arm-mode-mismatch,arm-mode-mismatch,rank-missing}"},
		{[]Reason{unlogged(0), wrong, exited}, "arm-mode-mismatch{arm-mode-mismatch} rank-exited"},
		{[]Reason{unlogged(0), unlogged(1), New(ThroughputInvalid, "no record")}, "arm-mode-mismatch{throughput-invalid} arm-mode-mismatch"},
		{[]Reason{New(DeadlineExceeded, "ready not reached in 20s"), missing, unlogged(2)}, "rank-missing{deadline-exceeded,arm-mode-mismatch}"},
		// Ctrl-C: the interrupt is the root and the controller's exit
		// (status 1, cancelled) follows it, where the exit came first
		{[]Reason{New(ControllerFailed, "its controller exited with status 1 (cancelled)"), New(Interrupted, "interrupted by SIGINT"), unlogged(0), New(ThroughputInvalid, "no record")},
			"interrupted{controller-failed,arm-mode-mismatch,throughput-invalid}"},
		{[]Reason{exited, New(Interrupted, "interrupted by SIGINT")}, "interrupted rank-exited"},
		{[]Reason{New(DeadlineExceeded, "ready not reached in 20s"), missing, New(RankMissing, "gen rank 0 unschedulable").At("a", "gen", 0)}, "rank-missing{deadline-exceeded} rank-missing"},
	} {
		if got := codes(Group(c.rs)); got != c.want {
			t.Errorf("grouped %s, want %s", got, c.want)
		}
	}
}
