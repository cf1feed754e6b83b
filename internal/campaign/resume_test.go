package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/launcher"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// begun plans and claims a campaign of quickstart with a controller of
// its own (a file whose content the test may change), as abbench run
// does, and returns its config for Reopen.
func begun(t *testing.T, repeat int) *Config {
	t.Helper()
	self := filepath.Join(t.TempDir(), "abbench")
	if err := os.WriteFile(self, []byte("controller v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := &Config{Scenario: quickstart(t), Launcher: "local", Repeat: repeat, Order: OrderABBA, Seed: 5, Self: self,
		Out: filepath.Join(t.TempDir(), "camp"), Options: map[string]string{"blocks": "2", "order_seed": "5"}}
	if _, err := plan(c); err != nil {
		t.Fatal(err)
	}
	again := *c
	return &again
}

// A resume of a campaign whose scenario, flags or binaries are not those
// it began with is refused, naming the change; the same campaign is not.
func TestReopenRefusesAChangedCampaign(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(t *testing.T, c *Config)
		want   string
	}{
		{"a deadline", func(t *testing.T, c *Config) { c.Scenario.Deadlines.Client *= 2 }, "the scenario (matched digest "},
		{"an arm's value", func(t *testing.T, c *Config) {
			c.Scenario.Arms["async"].Env["DISAGGSIM_TERMINAL"] = "2"
		}, `arms.async.env.DISAGGSIM_TERMINAL: "1", now "2"`},
		{"an option", func(t *testing.T, c *Config) { c.Options = map[string]string{"blocks": "3", "order_seed": "5"} }, "option blocks: the campaign was given 2, now 3"},
		{"an option left out", func(t *testing.T, c *Config) { c.Options = map[string]string{"order_seed": "5"} }, "option blocks: the campaign was given 2, now it is not given"},
		{"an option said as its flag", func(t *testing.T, c *Config) {
			c.Options = map[string]string{"blocks": "3", "order_seed": "5"}
			c.OptionName = func(key string) string { return "flag for " + key }
		}, "flag for blocks: the campaign was given 2, now 3"},
		{"the controller", func(t *testing.T, c *Config) {
			if err := os.WriteFile(c.Self, []byte("controller v2"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, "abbench " + "SELF: its content changed"},
		{"the design", func(t *testing.T, c *Config) { c.Repeat = 3 }, "the plan the scenario and flags make now (6 runs"},
	} {
		cfg := begun(t, 2)
		cfg.Scenario = quickstart(t)
		c.change(t, cfg)
		_, err := Reopen(cfg)
		want := strings.ReplaceAll(c.want, "SELF", cfg.Self)
		var re *RefusedError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s changed: %v, want a refusal naming %q", c.name, err, want)
		}
		if c.name == "a deadline" && err != nil && !strings.Contains(err.Error(), "deadlines.client: 1m0s, now 2m0s") {
			t.Errorf("a deadline changed: %v, want the key and both values", err)
		}
	}
	cfg := begun(t, 2)
	cfg.Scenario = quickstart(t)
	r, err := Reopen(cfg)
	if err != nil {
		t.Fatalf("the same campaign: %v", err)
	}
	if r.Left() != 4 || len(r.Plan.Resume.Resumed) != 1 {
		t.Errorf("a campaign none of whose runs ran: %d left, resumed %v; want 4 and one resume", r.Left(), r.Plan.Resume.Resumed)
	}
	if _, err := Reopen(&Config{Scenario: quickstart(t), Launcher: "local", Repeat: 2, Order: OrderABBA, Self: cfg.Self, Out: t.TempDir()}); err == nil ||
		!strings.Contains(err.Error(), "holds no plan.json") {
		t.Errorf("a directory without a campaign: %v", err)
	}
}

// A campaign begun by an abbench that recorded its options by flag name
// (plan.json's resume.flags) resumes by what those flags meant, so that a
// flag renamed since leaves it resumable; written again, its plan records
// options. A flag no abbench had is refused, naming it.
func TestReopenResumesAPlanThatRecordsFlags(t *testing.T) {
	oldShape := func(t *testing.T, cfg *Config, flags string) {
		t.Helper()
		path := filepath.Join(cfg.Out, rundir.PlanFile)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		res := doc["resume"].(map[string]any)
		delete(res, "options")
		res["flags"] = json.RawMessage(flags)
		if data, err = json.Marshal(doc); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := begun(t, 2)
	oldShape(t, cfg, `{"repeat": "2", "seed": "5"}`)
	cfg.Scenario = quickstart(t)
	r, err := Reopen(cfg)
	if err != nil {
		t.Fatalf("a plan that records its options by flag: %v", err)
	}
	if got := r.Plan.Resume.Options; len(got) != 2 || got["blocks"] != "2" || got["order_seed"] != "5" || r.Plan.Resume.Flags != nil {
		t.Errorf("read as options %v, flags %v", got, r.Plan.Resume.Flags)
	}

	cfg = begun(t, 2)
	oldShape(t, cfg, `{"repeat": "3", "seed": "5"}`)
	cfg.Scenario = quickstart(t)
	if _, err := Reopen(cfg); err == nil || !strings.Contains(err.Error(), "option blocks: the campaign was given 3, now 2") {
		t.Errorf("a plan of --repeat 3 by flag, resumed with 2 blocks: %v", err)
	}

	cfg = begun(t, 2)
	oldShape(t, cfg, `{"repeat": "2", "seed": "5", "no-such-flag": "1"}`)
	cfg.Scenario = quickstart(t)
	var refused *RefusedError
	if _, err := Reopen(cfg); !errors.As(err, &refused) || !strings.Contains(err.Error(), "records --no-such-flag, a flag abbench run never had") {
		t.Errorf("a flag no abbench had: %v, want a refusal naming it", err)
	}
}

// reopenWith writes p as the campaign's plan and reopens the campaign.
func reopenWith(t *testing.T, cfg *Config, p *rundir.Plan) *Result {
	t.Helper()
	if err := rundir.WritePlan(cfg.Out, p); err != nil {
		t.Fatal(err)
	}
	cfg.Scenario = quickstart(t)
	r, err := Reopen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// attempt writes an attempt of run pr with state, and evidence unless
// accepted is nil.
func attempt(t *testing.T, pr *rundir.PlannedRun, token, state string, accepted *bool) {
	t.Helper()
	dir := rundir.Attempt(pr.Dir, token)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := rundir.WriteStatus(dir, &rundir.Status{Arm: pr.Arm, Token: token, Dir: dir, State: state}); err != nil {
		t.Fatal(err)
	}
	if err := rundir.WriteLatest(pr.Dir, token); err != nil {
		t.Fatal(err)
	}
	if accepted != nil {
		if err := rundir.WriteJSON(filepath.Join(dir, rundir.EvidenceFile), evidence.Evidence{Arm: pr.Arm, Accepted: *accepted}); err != nil {
			t.Fatal(err)
		}
	}
}

// A resumed campaign keeps the runs that ended, accepted or censored, as
// the campaign recorded them or (ended unwatched) as their files say, and
// runs the interrupted ones, those that never started, and those whose
// attempt ended without evidence or still says running.
func TestReopenKeepsWhatEndedAndRunsTheRest(t *testing.T) {
	cfg := begun(t, 3)
	p, err := rundir.ReadPlan(cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	yes, no := true, false
	runs := p.Runs
	runs[0].Result = &rundir.Outcome{State: launcher.Failed, ExitCode: 3} // censored, as the campaign saw it end
	attempt(t, &runs[0], "t1", rundir.StateFailed, &no)
	runs[1].Result, runs[1].Interrupted = &rundir.Outcome{State: launcher.Cancelled}, true
	attempt(t, &runs[1], "t2", rundir.StateInterrupted, &no)
	attempt(t, &runs[2], "t3", rundir.StateSucceeded, &yes) // ended while no campaign watched
	attempt(t, &runs[3], "t4", rundir.StateRunning, nil)
	attempt(t, &runs[4], "t5", rundir.StateFailed, nil) // its controller stopped before its evidence
	r := reopenWith(t, cfg, p)
	for i, want := range []bool{true, false, true, false, false, false} {
		if r.Runs[i].kept != want {
			t.Errorf("run %d: kept %v, want %v", i+1, r.Runs[i].kept, want)
		}
	}
	if res := r.Runs[2].Planned.Result; res == nil || res.State != launcher.Succeeded || res.ExitCode != 0 || !strings.Contains(res.Detail, "no abbench run watched it") {
		t.Errorf("the run that ended unwatched is recorded as %+v", res)
	}
	if r.Left() != 4 {
		t.Errorf("%d runs left, want 4", r.Left())
	}
}

// A look a sequential campaign took before it was resumed is not taken
// again when the resumed campaign passes the block it ended.
func TestLookTakenBeforeAResumeIsNotTakenAgain(t *testing.T) {
	p := &rundir.Plan{Sequential: &rundir.Sequential{MinPairs: 3, MaxPairs: 6}, Looks: []rundir.Look{{Pairs: 3, Verdict: "inconclusive"}}}
	c := &Config{Scenario: &scenarios.Scenario{ArmOrder: []string{"a", "b"}}}
	if (&execution{Config: c}).look(&Result{Plan: p, Out: t.TempDir()}, 6) || len(p.Looks) != 1 {
		t.Fatalf("the look at pair 3 was taken again: %+v", p.Looks)
	}
}

// One abbench run runs a campaign at a time: its lock refuses another,
// naming the holder, and is free again once released; a link in its
// place is never followed.
func TestLockHoldsOneRunOfTheCampaign(t *testing.T) {
	dir := t.TempDir()
	release, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	var busy *BusyError
	if _, err := Lock(dir); !errors.As(err, &busy) || !strings.Contains(busy.Holder, "pid ") {
		t.Fatalf("a second lock: %v, want a BusyError naming its holder", err)
	}
	release()
	again, err := Lock(dir)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	again()
	linked := t.TempDir()
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.Symlink(target, filepath.Join(linked, rundir.RunLock)); err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(linked); err == nil {
		t.Fatal("a lock through a link was taken")
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the lock followed a link and made its target")
	}
}

// fakeLauncher is a backend whose allocations outlive abbench: Attach
// finds those in live; every run, attached or started, "runs" by writing
// an accepted attempt.
type fakeLauncher struct {
	live    map[string]bool
	started []launcher.Spec
}

func (f *fakeLauncher) Name() string { return "fake" }

func (f *fakeLauncher) Start(_ context.Context, spec launcher.Spec) (launcher.Run, error) {
	if err := launcher.MakeDir(spec); err != nil {
		return nil, err
	}
	f.started = append(f.started, spec)
	return fakeRun(spec, "fake-"+spec.ID), nil
}

func (f *fakeLauncher) Attach(spec launcher.Spec, allocation string) (launcher.Run, error) {
	if !f.live[allocation] {
		return nil, nil
	}
	return fakeRun(spec, allocation), nil
}

type doneRun struct {
	spec       launcher.Spec
	allocation string
}

// fakeRun writes spec's attempt, accepted, and is a run that has ended.
func fakeRun(spec launcher.Spec, allocation string) *doneRun {
	token := "tok-" + allocation
	dir := rundir.Attempt(spec.Dir, token)
	_ = os.MkdirAll(dir, 0o755)
	_ = rundir.WriteStatus(dir, &rundir.Status{Token: token, Dir: dir, State: rundir.StateSucceeded})
	_ = rundir.WriteJSON(filepath.Join(dir, rundir.EvidenceFile), evidence.Evidence{Accepted: true})
	_ = rundir.WriteLatest(spec.Dir, token)
	return &doneRun{spec: spec, allocation: allocation}
}

func (r *doneRun) ID() string           { return r.spec.ID }
func (r *doneRun) AllocationID() string { return r.allocation }
func (r *doneRun) Wait(context.Context) (rundir.Outcome, error) {
	return rundir.Outcome{State: launcher.Succeeded, AllocationID: r.allocation}, nil
}
func (r *doneRun) Cancel() error            { return nil }
func (r *doneRun) Collect() (string, error) { return r.spec.Dir, nil }

// A resumed campaign waits for a run's allocation that is still live
// instead of starting the run again, starts a run whose allocation ended
// as another attempt in its directory, and starts one that never began.
func TestExecuteAttachesToLiveAllocations(t *testing.T) {
	cfg := begun(t, 2)
	p, err := rundir.ReadPlan(cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	p.Runs[0].Allocation = "slurm-7" // still running when the campaign died
	p.Runs[1].Allocation = "slurm-8" // gone, its attempt left running
	attempt(t, &p.Runs[1], "old", rundir.StateRunning, nil)
	r := reopenWith(t, cfg, p)
	fake := &fakeLauncher{live: map[string]bool{"slurm-7": true}}
	cfg.launcher = fake
	if err := Execute(context.Background(), cfg, r); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range fake.started {
		ids = append(ids, s.ID)
		if want := s.ID == rundir.RunID(2, p.Runs[1].Arm); s.Again != want {
			t.Errorf("run %s started with Again %v, want %v", s.ID, s.Again, want)
		}
	}
	if want := []string{rundir.RunID(2, p.Runs[1].Arm), rundir.RunID(3, p.Runs[2].Arm), rundir.RunID(4, p.Runs[3].Arm)}; !slices.Equal(ids, want) {
		t.Errorf("started %v, want %v: the live allocation of run 1 waited for", ids, want)
	}
	if res := r.Runs[0].Planned.Result; res == nil || res.AllocationID != "slurm-7" || r.Runs[0].Planned.Token != "tok-slurm-7" {
		t.Errorf("run 1: %+v, want the attached allocation's end", r.Runs[0].Planned)
	}
	if _, err := os.Stat(rundir.Attempt(p.Runs[1].Dir, "old")); err != nil {
		t.Errorf("run 2's earlier attempt is gone: %v", err)
	}
}

// A run whose controller failed (a requeued job that never ran again: exit
// -1) takes no evidence from the attempt its directory still holds.
func TestCollectTakesNoEvidenceOfAFailedController(t *testing.T) {
	cfg := begun(t, 3)
	p, err := rundir.ReadPlan(cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	pr := &p.Runs[0]
	attempt(t, pr, "t1", rundir.StateSucceeded, &yes)
	pr.Result = &rundir.Outcome{State: launcher.Cancelled, ExitCode: -1}
	run := &Run{Planned: pr}
	run.collect()
	if run.Evidence != nil || pr.Accepted != nil {
		t.Errorf("evidence %+v, accepted %v: a failed controller's run took an older attempt's evidence", run.Evidence, pr.Accepted)
	}
	pr.Result = &rundir.Outcome{State: launcher.Failed, ExitCode: 3} // censored by its own controller
	run = &Run{Planned: pr}
	run.collect()
	if run.Evidence == nil {
		t.Error("a controller that ran and censored: its evidence is its result")
	}
}
