package campaign

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/field"
	"github.com/abbench/abbench/internal/launcher"
	"github.com/abbench/abbench/internal/rundir"
)

// timedLauncher runs every spec for d: its attempt's status.json says
// when it started and, once it ended, when it ended, as a controller's
// does. A run of arm fail fails; the start of a run of arm refuse fails;
// Attach finds the allocations in live.
type timedLauncher struct {
	d            time.Duration
	fail, refuse string
	live         map[string]bool
	mu           sync.Mutex
	started      []string // spec IDs, in start order
	cancelled    []string
}

func (l *timedLauncher) Name() string { return "timed" }

func (l *timedLauncher) Start(_ context.Context, spec launcher.Spec) (launcher.Run, error) {
	if strings.HasSuffix(spec.ID, "-"+l.refuse) {
		return nil, errors.New("no allocation")
	}
	if err := launcher.MakeDir(spec); err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.started = append(l.started, spec.ID)
	l.mu.Unlock()
	return l.run(spec, "timed-"+spec.ID), nil
}

func (l *timedLauncher) Attach(spec launcher.Spec, allocation string) (launcher.Run, error) {
	if !l.live[allocation] {
		return nil, nil
	}
	return l.run(spec, allocation), nil
}

func (l *timedLauncher) run(spec launcher.Spec, allocation string) *timedRun {
	r := &timedRun{l: l, spec: spec, allocation: allocation, token: "tok-" + allocation, done: make(chan struct{}), stop: make(chan struct{})}
	r.dir = rundir.Attempt(spec.Dir, r.token)
	_ = os.MkdirAll(r.dir, 0o755)
	r.st = rundir.Status{Token: r.token, Dir: r.dir, State: rundir.StateRunning, Started: time.Now().UTC()}
	_ = rundir.WriteStatus(r.dir, &r.st)
	_ = rundir.WriteLatest(spec.Dir, r.token)
	go r.live()
	return r
}

type timedRun struct {
	l                      *timedLauncher
	spec                   launcher.Spec
	allocation, token, dir string
	st                     rundir.Status
	done, stop             chan struct{}
	stopOnce               sync.Once
	res                    rundir.Outcome
}

func (r *timedRun) live() {
	state, ok := rundir.StateSucceeded, !strings.HasSuffix(r.spec.ID, "-"+r.l.fail)
	res := rundir.Outcome{State: launcher.Succeeded, AllocationID: r.allocation, Started: r.st.Started}
	select {
	case <-time.After(r.l.d):
		if !ok {
			state, res.State, res.ExitCode = rundir.StateFailed, launcher.Failed, 3
		}
	case <-r.stop:
		state, res.State, ok = rundir.StateInterrupted, launcher.Cancelled, false
	}
	r.st.State, r.st.Ended = state, time.Now().UTC()
	_ = rundir.WriteStatus(r.dir, &r.st)
	_ = rundir.WriteJSON(filepath.Join(r.dir, rundir.EvidenceFile), evidence.Evidence{Accepted: ok})
	res.Ended = r.st.Ended
	r.res = res
	close(r.done)
}

func (r *timedRun) ID() string           { return r.spec.ID }
func (r *timedRun) AllocationID() string { return r.allocation }
func (r *timedRun) Wait(ctx context.Context) (rundir.Outcome, error) {
	select {
	case <-r.done:
		return r.res, nil
	case <-ctx.Done():
		return rundir.Outcome{}, ctx.Err()
	}
}
func (r *timedRun) Cancel() error {
	r.stopOnce.Do(func() {
		r.l.mu.Lock()
		r.l.cancelled = append(r.l.cancelled, r.spec.ID)
		r.l.mu.Unlock()
		close(r.stop)
	})
	<-r.done
	return nil
}
func (r *timedRun) Collect() (string, error) { return r.spec.Dir, nil }

// concurrentCampaign plans and claims a campaign of quickstart, its arms
// declared to share nothing, run by l.
func concurrentCampaign(t *testing.T, l launcher.Launcher, concurrent bool, repeat int) (*Config, *Result) {
	t.Helper()
	s := quickstart(t)
	s.Launcher.Local.ConcurrentSafe = true
	c := &Config{Scenario: s, Launcher: "local", Repeat: repeat, Order: OrderABBA, Concurrent: concurrent, Out: filepath.Join(t.TempDir(), "camp"), launcher: l, Self: "abbench"}
	r, err := plan(c)
	if err != nil {
		t.Fatal(err)
	}
	return c, r
}

// overlap says whether two runs' status.json times overlap: each started
// before the other ended.
func overlap(a, b *rundir.Status) bool {
	return a.Started.Before(b.Ended) && b.Started.Before(a.Ended)
}

// With Concurrent the two runs of each block run at the same time (the
// start of each, in its status.json, before the end of the other), and
// a block starts once the one before it ended; without it no two runs
// overlap.
func TestConcurrentRunsEachBlocksRunsAtOnce(t *testing.T) {
	for _, concurrent := range []bool{true, false} {
		l := &timedLauncher{d: 300 * time.Millisecond}
		c, r := concurrentCampaign(t, l, concurrent, 2)
		if err := Execute(context.Background(), c, r); err != nil {
			t.Fatal(err)
		}
		p, err := rundir.ReadPlan(r.Out)
		if err != nil || p.Concurrent != concurrent {
			t.Fatalf("concurrent %v: plan.json says concurrent %v (%v)", concurrent, p.Concurrent, err)
		}
		checkOverlaps(t, r, concurrent)
		if concurrent && (len(r.Together) != 2 || !r.Together[0].Overlapped || !r.Together[1].Overlapped) {
			t.Errorf("the result says the blocks ran %+v, want both side by side", r.Together)
		}
		if !concurrent && r.Together != nil {
			t.Errorf("a campaign run one run at a time says its blocks ran %+v", r.Together)
		}
		for i, run := range r.Runs {
			if pr := run.Planned; pr.Result == nil || pr.Result.State != launcher.Succeeded || pr.Accepted == nil || !*pr.Accepted {
				t.Errorf("concurrent %v: run %d recorded as %+v", concurrent, i+1, pr)
			}
		}
	}
}

// checkOverlaps fails t unless the runs of r overlap in time exactly
// when concurrent and in one block of two.
func checkOverlaps(t *testing.T, r *Result, concurrent bool) {
	t.Helper()
	for i := range r.Runs {
		for j := i + 1; j < len(r.Runs); j++ {
			a, b := r.Runs[i].Status, r.Runs[j].Status
			if a == nil || b == nil || a.Ended.IsZero() || b.Ended.IsZero() {
				t.Fatalf("run %d or %d has no status with its end", i+1, j+1)
			}
			if got, want := overlap(a, b), concurrent && i/2 == j/2; got != want {
				t.Errorf("concurrent %v: runs %d (%s-%s) and %d (%s-%s) overlap %v, want %v", concurrent,
					i+1, a.Started.Format(time.StampMilli), a.Ended.Format(time.StampMilli), j+1, b.Started.Format(time.StampMilli), b.Ended.Format(time.StampMilli), got, want)
			}
		}
	}
}

// A block of which one run fails runs its other run to its end, and
// both are recorded as they ended (the comparison censors the block as
// for runs one after the other).
func TestConcurrentBlockWithAFailedRun(t *testing.T) {
	l := &timedLauncher{d: 100 * time.Millisecond, fail: "blocking"}
	c, r := concurrentCampaign(t, l, true, 1)
	c.KeepGoing = true
	if err := Execute(context.Background(), c, r); err != nil {
		t.Fatal(err)
	}
	for _, run := range r.Runs {
		pr, want := run.Planned, launcher.Succeeded
		if pr.Arm == "blocking" {
			want = launcher.Failed
		}
		if pr.Result == nil || pr.Result.State != want || pr.Accepted == nil || *pr.Accepted != (want == launcher.Succeeded) {
			t.Errorf("run %s: %+v, want %s", pr.Arm, pr.Result, want)
		}
	}
}

// An interrupt during a block tears down every run of it: each is
// recorded interrupted, and no later block starts.
func TestConcurrentBlockInterrupted(t *testing.T) {
	l := &timedLauncher{d: time.Minute}
	c, r := concurrentCampaign(t, l, true, 2)
	ctx, cancel := context.WithCancel(context.Background())
	c.Progress = func(e Event) {
		if e.State == "starting" && e.Index == 2 {
			go func() { time.Sleep(300 * time.Millisecond); cancel() }()
		}
	}
	start := time.Now()
	if err := Execute(ctx, c, r); err != nil {
		t.Fatal(err)
	}
	if !r.Interrupted || time.Since(start) > 20*time.Second {
		t.Fatalf("interrupted %v after %s", r.Interrupted, time.Since(start))
	}
	slices.Sort(l.cancelled)
	if want := []string{rundir.RunID(1, "async"), rundir.RunID(2, "blocking")}; !slices.Equal(l.cancelled, want) || len(l.started) != 2 {
		t.Errorf("cancelled %v of started %v, want %v: the block torn down, nothing after it started", l.cancelled, l.started, want)
	}
	for _, run := range r.Runs[:2] {
		if !run.Planned.Interrupted {
			t.Errorf("run %d not marked interrupted", run.Planned.Index)
		}
	}
}

// A block whose later run cannot be started at all cancels the runs of
// it that started, records them, and is the campaign's error.
func TestConcurrentBlockThatCannotStartWhole(t *testing.T) {
	l := &timedLauncher{d: time.Minute, refuse: "blocking"}
	c, r := concurrentCampaign(t, l, true, 1)
	err := Execute(context.Background(), c, r)
	if err == nil || !strings.Contains(err.Error(), "no allocation") {
		t.Fatalf("err %v, want the start's", err)
	}
	if !slices.Equal(l.cancelled, []string{rundir.RunID(1, "async")}) {
		t.Errorf("cancelled %v, want the block's run that started", l.cancelled)
	}
	if res := r.Runs[0].Planned.Result; res == nil || res.State != launcher.Cancelled || !strings.Contains(res.Detail, "another run of its block could not be started") {
		t.Errorf("run 1 recorded as %+v", res)
	}
	p, _ := rundir.ReadPlan(r.Out)
	if p == nil || p.Runs[0].Result == nil {
		t.Errorf("plan.json does not record the cancelled run: %+v", p)
	}
}

// A resumed concurrent campaign keeps a block's run that ended and runs
// its other run alone; a block with one allocation still live and one
// never started waits for the first while the second runs beside it.
func TestConcurrentResume(t *testing.T) {
	l := &timedLauncher{d: 300 * time.Millisecond}
	c, r := concurrentCampaign(t, l, true, 2)
	p := r.Plan
	yes := true
	p.Runs[0].Result, p.Runs[0].Accepted = &rundir.Outcome{State: launcher.Succeeded}, &yes
	attempt(t, &p.Runs[0], "t1", rundir.StateSucceeded, &yes)
	then := time.Now().Add(-time.Hour).UTC()
	if err := rundir.WriteStatus(rundir.Attempt(p.Runs[0].Dir, "t1"), &rundir.Status{Token: "t1", State: rundir.StateSucceeded, Started: then, Ended: then.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	p.Runs[1].Result, p.Runs[1].Interrupted = &rundir.Outcome{State: launcher.Cancelled}, true
	attempt(t, &p.Runs[1], "t2", rundir.StateInterrupted, nil)
	p.Runs[2].Allocation = "slurm-9"
	l.live = map[string]bool{"slurm-9": true}
	if err := rundir.WritePlan(r.Out, p); err != nil {
		t.Fatal(err)
	}
	c.Scenario = quickstart(t)
	c.Scenario.Launcher.Local.ConcurrentSafe = true
	again, err := Reopen(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := Execute(context.Background(), c, again); err != nil {
		t.Fatal(err)
	}
	if want := []string{rundir.RunID(2, "blocking"), rundir.RunID(4, "async")}; !slices.Equal(l.started, want) {
		t.Errorf("started %v, want %v: run 1 kept, run 3's live allocation waited for", l.started, want)
	}
	a, b := again.Runs[2].Status, again.Runs[3].Status
	if a == nil || b == nil || !overlap(a, b) {
		t.Errorf("the attached run 3 and the started run 4 did not run side by side: %+v %+v", a, b)
	}
	if tg := again.Together; len(tg) != 2 || tg[0].Overlapped || !tg[1].Overlapped {
		t.Errorf("the resumed campaign says its blocks ran %+v: want block 1 (a run kept, the other run again) not side by side, block 2 side by side", tg)
	}
	if got := again.Runs[0].Planned.Token; got != "t1" {
		t.Errorf("run 1's attempt %q, want the kept t1", got)
	}
}

// --concurrent is refused where a block's runs would share what they
// measure, or where the plan has no blocks, naming the field and a fix;
// under Slurm it is planned.
func TestConcurrentRefusals(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		safe bool
		want string
	}{
		{Config{Launcher: "local", Repeat: 1, Order: OrderABBA}, false, "launcher: {local: {concurrent_safe: true}}"},
		{Config{Launcher: "local", Repeat: 1, Order: OrderRandom}, true, "Concurrent: needs Order abba or interleaved"},
		{Config{Launcher: "slurm", Repeat: 1, Order: OrderABBA, PairNodes: true}, false, "Concurrent and PairNodes"},
		{Config{Launcher: "local", Repeat: 1, Order: OrderABBA, Stages: true}, true, "Concurrent and Stages"},
	} {
		s := quickstart(t)
		s.Launcher.Local.ConcurrentSafe = c.safe
		c.cfg.Scenario, c.cfg.Concurrent, c.cfg.Out = s, true, filepath.Join(t.TempDir(), "never")
		_, err := Plan(&c.cfg)
		var fe *field.Error
		if !errors.As(err, &fe) || fe.Field != "Concurrent" || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want a field error of Concurrent saying %q", c.cfg, err, c.want)
		}
	}
	for _, cfg := range []Config{
		{Launcher: "slurm", Repeat: 2, Order: OrderABBA},
		{Launcher: "slurm", Repeat: 2, Order: OrderInterleaved, Warmup: 1},
		{Launcher: "local", Repeat: 3, Order: OrderABBA, Calibrate: "async"},
	} {
		s := quickstart(t)
		s.Launcher.Local.ConcurrentSafe = cfg.Launcher == "local"
		cfg.Scenario, cfg.Concurrent, cfg.Out = s, true, t.TempDir()
		r, err := Plan(&cfg)
		if err != nil || !r.Plan.Concurrent {
			t.Errorf("%+v: %v", cfg, err)
			continue
		}
		if g := cfg.groups(len(r.Runs)); len(g) != len(r.Runs)/2 || fmt.Sprint(g[0]) != "[0 1]" {
			t.Errorf("%+v: groups %v, want the blocks of two", cfg, g)
		}
	}
}
