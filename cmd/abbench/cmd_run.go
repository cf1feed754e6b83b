package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/abbench/abbench/arms"
	"github.com/abbench/abbench/evidence"
	"github.com/abbench/abbench/evidence/compare"
	"github.com/abbench/abbench/internal/atomicfile"
	"github.com/abbench/abbench/launcher"
	"github.com/abbench/abbench/launcher/local"
	"github.com/abbench/abbench/launcher/slurm"
	"github.com/abbench/abbench/scenarios"
)

type runOptions struct {
	launcher   string
	repeat     int
	order      string
	seed       uint64
	seedSet    bool
	out        string
	calibrate  string
	maxPending time.Duration
	sign       signOptions
	compare    compareOptions
}

func newRunCmd() *cobra.Command {
	var opts runOptions
	cmd := &cobra.Command{
		Use:   "run SCENARIO [--launcher local] [--repeat N] [--order interleaved|random] [--seed S] [--out DIR]",
		Short: "Run every arm, each run in its own allocation",
		Long: `run runs every arm of the scenario --repeat times, each run in a fresh
allocation of its own (with --launcher local: a process session on this
machine), one at a time, in the chosen order: interleaved (A B A B ...) or
random (shuffled with --seed; the seed is recorded). Each run is an
'abbench arm' controller in DIR/runs/N-ARM; DIR/plan.json records the order,
the seed and each run's allocation, token and result.

Progress goes to stderr: a live line on a terminal, one line per state change
otherwise. SIGINT or SIGTERM cancels the run in progress, which tears its
processes down, and stops.

The runs are then compared as abbench compare does (the compare flags
apply), and the exit status is the comparison's.

With --calibrate ARM, only that arm runs, --repeat times (an A/A
experiment): the run-to-run noise of the metric and the minimum detectable
effect for 1 to 10 runs per arm go to DIR/calibration.json, for
abbench compare --calibration.`,
		Example: `  abbench run scenarios/quickstart.yaml
  abbench run scenarios/quickstart.yaml --repeat 3 --order random --seed 7 --out out/ab
  abbench run scenarios/quickstart.yaml --calibrate blocking --repeat 5`,
		Args: argsUsage(cobra.ExactArgs(1), "abbench run SCENARIO"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.seedSet = cmd.Flags().Changed("seed")
			return runRun(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), opts, args[0])
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.launcher, "launcher", "local", "allocation backend: local (a process session each) or slurm (an sbatch job each)")
	fs.IntVar(&opts.repeat, "repeat", 1, "runs per arm")
	fs.StringVar(&opts.order, "order", "interleaved", "run order: interleaved or random")
	fs.Uint64Var(&opts.seed, "seed", 0, "seed of the random order (default: from the clock, recorded)")
	fs.StringVar(&opts.out, "out", "", "output directory (default out/NAME-TIME)")
	fs.DurationVar(&opts.maxPending, "max-pending", time.Hour, "cancel a run whose allocation stays queued longer than this")
	fs.StringVar(&opts.calibrate, "calibrate", "", "run only this arm, --repeat times, and write calibration.json (A/A noise)")
	addSignFlags(cmd, &opts.sign)
	addCompareFlags(cmd, &opts.compare)
	addFormatFlag(fs, &opts.compare.format, "table", "json", "markdown", "junit")
	return cmd
}

// plannedRun is one run of the plan, as recorded in plan.json.
type plannedRun struct {
	Index int    `json:"index"`
	Arm   string `json:"arm"`
	Dir   string `json:"dir"`
	// Allocation is the run's allocation (local-PID, slurm-JOBID), in submit order.
	Allocation string             `json:"allocation,omitempty"`
	Token      string             `json:"token,omitempty"`
	Result     *launcher.Result   `json:"result,omitempty"`
	Accepted   *bool              `json:"evidence_accepted,omitempty"`
	Status     *arms.Status       `json:"-"`
	Evidence   *evidence.Evidence `json:"-"`
}

type plan struct {
	Scenario      string       `json:"scenario"`
	MatchedDigest string       `json:"matched_digest"`
	Launcher      string       `json:"launcher"`
	Order         string       `json:"order"`
	Seed          uint64       `json:"seed"`
	Repeat        int          `json:"repeat"`
	Runs          []plannedRun `json:"runs"`
}

// order lists the arms for every run: interleaved repeats the arms in file
// order; random shuffles all runs with seed.
func order(armNames []string, repeat int, how string, seed uint64) []string {
	var seq []string
	for range repeat {
		seq = append(seq, armNames...)
	}
	if how == "random" {
		r := rand.New(rand.NewPCG(seed, 0x61626265))
		r.Shuffle(len(seq), func(i, j int) { seq[i], seq[j] = seq[j], seq[i] })
	}
	return seq
}

func runRun(ctx context.Context, stdout, stderr io.Writer, opts runOptions, path string) error {
	if err := opts.compare.check(); err != nil {
		return err
	}
	if opts.launcher != "local" && opts.launcher != "slurm" {
		return usagef("", "--launcher %q: choose local or slurm", opts.launcher)
	}
	if opts.repeat < 1 {
		return usagef("", "--repeat %d: must be at least 1", opts.repeat)
	}
	if opts.order != "interleaved" && opts.order != "random" {
		return usagef("", "--order %q: choose interleaved or random", opts.order)
	}
	s, err := loadScenario(path)
	if err != nil {
		return err
	}
	if !opts.seedSet {
		opts.seed = uint64(time.Now().UnixNano())
	}
	if opts.out == "" {
		opts.out = filepath.Join("out", s.Name+"-"+time.Now().UTC().Format("20060102T150405Z"))
	}
	out, err := filepath.Abs(opts.out)
	if err != nil {
		return err
	}
	if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
		return usagef("choose a new --out directory: runs never share one", "--out %s is not empty", opts.out)
	}
	if err := os.MkdirAll(filepath.Join(out, "runs"), 0o755); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	scenarioPath, _ := filepath.Abs(path)
	armNames := s.ArmOrder
	if opts.calibrate != "" {
		if _, ok := s.Arms[opts.calibrate]; !ok {
			return usagef("", "--calibrate %q is not an arm of %s (arms: %v)", opts.calibrate, path, s.ArmOrder)
		}
		if opts.repeat < 3 {
			return usagef("for example --calibrate "+opts.calibrate+" --repeat 5", "calibration needs --repeat of at least 3")
		}
		armNames = []string{opts.calibrate}
	}
	p := &plan{Scenario: s.Name, MatchedDigest: s.MatchedDigest(), Launcher: opts.launcher, Order: opts.order, Seed: opts.seed, Repeat: opts.repeat}
	for i, arm := range order(armNames, opts.repeat, opts.order, opts.seed) {
		p.Runs = append(p.Runs, plannedRun{Index: i + 1, Arm: arm, Dir: filepath.Join(out, "runs", fmt.Sprintf("%d-%s", i+1, arm))})
	}
	writePlan(out, p)
	signArgs, err := opts.sign.args()
	if err != nil {
		return err
	}
	d := s.Deadlines
	grace := time.Duration(d.Teardown) + time.Duration(d.KillGrace) + 5*time.Second
	var l launcher.Launcher = &local.Launcher{CPUs: s.Launcher.Local.CPUs, Grace: grace}
	ranksMode := arms.RanksLocal
	if opts.launcher == "slurm" {
		l = &slurm.Launcher{Options: s.Launcher.Slurm, TasksPerNode: tasksPerNode(s), Grace: grace}
		ranksMode = arms.RanksSrun
	}
	// A run that outlives every deadline of its phases, with a margin for
	// the allocation to start, is cancelled: nothing waits for ever, also
	// not on an allocation that never starts or hangs.
	phases := time.Duration(d.Ready + d.Client + d.Drain + d.Teardown + d.KillGrace)
	runDeadline := phases + max(10*time.Second, phases/5)
	prog := newProgress(stderr, len(p.Runs))
	interrupted := false
	for i := range p.Runs {
		pr := &p.Runs[i]
		if ctx.Err() != nil {
			interrupted = true
			break
		}
		spec := launcher.Spec{ID: fmt.Sprintf("%d-%s", pr.Index, pr.Arm), Dir: pr.Dir,
			Command: append([]string{self, "arm", scenarioPath, "--arm", pr.Arm, "--out", pr.Dir, "--format", "json", "--ranks", ranksMode}, signArgs...)}
		prog.state(pr, "starting", 0)
		r, err := l.Start(ctx, spec)
		if err != nil {
			return fmt.Errorf("run %s: %w", spec.ID, err)
		}
		pr.Allocation = r.AllocationID()
		writePlan(out, p)
		res, werr := waitWithProgress(ctx, r, pr, prog, runDeadline, opts.maxPending)
		if werr != nil { // interrupted or past its deadline: tear the run down, keep what it wrote
			if err := r.Cancel(); err != nil {
				fmt.Fprintf(stderr, "abbench: %v\n", err)
			}
			res, _ = r.Wait(context.Background())
			if errors.Is(werr, errPastDeadline) {
				res.Detail = fmt.Sprintf("cancelled: %v; %s", werr, res.Detail)
			} else {
				interrupted = true
			}
		}
		pr.Result = &res
		pr.Status = readStatus(pr.Dir)
		if pr.Status != nil {
			pr.Token = pr.Status.Token
			pr.Evidence = readEvidence(pr.Status.Dir)
			if pr.Evidence != nil {
				pr.Accepted = &pr.Evidence.Accepted
			}
		}
		prog.state(pr, string(res.State), res.Ended.Sub(res.Started))
		writePlan(out, p)
		if interrupted {
			break
		}
	}
	prog.done()
	if interrupted {
		printRuns(stdout, out, p)
		return &statusError{code: exitError, err: fmt.Errorf("interrupted; every run's processes were stopped and its files kept in %s", out)}
	}
	if opts.compare.format.value == "table" {
		printRuns(stdout, out, p)
		fmt.Fprintln(stdout)
	}
	runs, cleanup, err := compare.LoadRuns([]string{out})
	defer cleanup()
	if err != nil {
		return err
	}
	if opts.calibrate != "" {
		return writeCalibration(stdout, out, opts, p, runs)
	}
	if opts.compare.format.value == "json" {
		// One JSON document: the plan and the comparison.
		var buf bytes.Buffer
		err := runCompare(&buf, opts.compare, runs)
		var cmp json.RawMessage = buf.Bytes()
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if e := enc.Encode(struct {
			Plan       *plan           `json:"plan"`
			Comparison json.RawMessage `json:"comparison"`
		}{p, cmp}); e != nil {
			return e
		}
		return err
	}
	return runCompare(stdout, opts.compare, runs)
}

func writeCalibration(stdout io.Writer, out string, opts runOptions, p *plan, runs []compare.Run) error {
	var values []float64
	metric := opts.compare.metric
	if metric == "" {
		metric = "output_throughput"
		if len(runs) > 0 && runs[0].Evidence.HeadlineMetric != "" {
			metric = runs[0].Evidence.HeadlineMetric
		}
	}
	for _, r := range runs {
		if !r.Evidence.Accepted {
			return &statusError{code: exitCensored, err: fmt.Errorf("calibration run %s: evidence not accepted: a calibration needs every run accepted", r.Path)}
		}
		if r.Evidence.Throughput != nil {
			if v, ok := r.Evidence.Throughput.Metrics[metric]; ok {
				values = append(values, v)
			}
		}
	}
	c, err := compare.Calibrate(opts.calibrate, metric, values)
	if err != nil {
		return err
	}
	data, _ := json.MarshalIndent(c, "", "  ")
	path := filepath.Join(out, "calibration.json")
	if err := atomicfile.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "calibration of arm %s on %s: %d A/A runs, mean %.1f, coefficient of variation %.2f%%\n\n", c.Arm, c.Metric, c.N, c.Mean, 100*c.CV)
	var rows [][]string
	for n := 1; n <= 10; n++ {
		mde, _ := c.MDE(n)
		rows = append(rows, []string{fmt.Sprint(n), fmt.Sprintf("%.2f%%", mde)})
	}
	writeTable(stdout, []string{"runs per arm", "minimum detectable effect (alpha 0.05, power 0.8)"}, rows)
	fmt.Fprintf(stdout, "\nwritten to %s; use it with abbench compare --calibration %s\n", path, path)
	return nil
}

func readEvidence(dir string) *evidence.Evidence {
	data, err := os.ReadFile(filepath.Join(dir, "evidence.json"))
	if err != nil {
		return nil
	}
	var ev evidence.Evidence
	if json.Unmarshal(data, &ev) != nil {
		return nil
	}
	return &ev
}

func runReason(pr plannedRun) string {
	if pr.Evidence != nil && len(pr.Evidence.Reasons) > 0 {
		r := pr.Evidence.Reasons[0].String()
		// What the allocation says (a Slurm job's state) comes first.
		if pr.Result != nil && pr.Result.State != launcher.Succeeded && pr.Result.Detail != "" && !strings.HasPrefix(pr.Result.Detail, "exit status") {
			r = pr.Result.Detail + "; " + r
		}
		return r
	}
	if pr.Status != nil && len(pr.Status.Reasons) > 0 {
		return pr.Status.Reasons[0].String()
	}
	if pr.Result != nil {
		return fmt.Sprintf("%s: controller exited with status %d (see %s)", pr.Result.Detail, pr.Result.ExitCode, pr.Dir)
	}
	return "not run"
}

func writePlan(out string, p *plan) {
	data, _ := json.MarshalIndent(p, "", "  ")
	atomicfile.WriteFile(filepath.Join(out, "plan.json"), append(data, '\n'), 0o644)
}

// readStatus reads the newest attempt's status.json of a run directory.
func readStatus(dir string) *arms.Status {
	token, err := os.ReadFile(filepath.Join(dir, "LATEST"))
	if err != nil {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(dir, strings.TrimSpace(string(token)), "status.json"))
	if err != nil {
		return nil
	}
	var st arms.Status
	if json.Unmarshal(data, &st) != nil {
		return nil
	}
	return &st
}

// errPastDeadline ends a wait whose run outlived its deadline.
var errPastDeadline = errors.New("past its deadline")

// waitWithProgress waits for a run, reporting its phase. The deadline
// counts from when the run's current attempt started running (a requeued
// job starts again; time queued does not count), and maxPending bounds
// the time spent queued.
func waitWithProgress(ctx context.Context, r launcher.Run, pr *plannedRun, prog *progress, deadline, maxPending time.Duration) (launcher.Result, error) {
	start := time.Now()
	attempt, pendingSince := start, start
	lastPhase := ""
	for {
		wctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		res, err := r.Wait(wctx)
		cancel()
		if err == nil {
			return res, nil
		}
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		sched := ""
		if s, ok := r.(interface{ Status() string }); ok {
			sched = s.Status() // pending, running, ... as the scheduler says
		}
		now := time.Now()
		if strings.HasPrefix(sched, "pending") {
			attempt = now
			if now.Sub(pendingSince) > maxPending {
				return res, fmt.Errorf("%w: queued for more than %s (--max-pending)", errPastDeadline, maxPending)
			}
		} else {
			pendingSince = now
			if now.Sub(attempt) > deadline {
				return res, fmt.Errorf("%w of %s (the scenario's deadlines and a margin)", errPastDeadline, deadline)
			}
		}
		phase := "running"
		if st := readStatus(pr.Dir); st != nil && !strings.HasPrefix(sched, "pending") {
			phase = st.Phase
		} else if sched != "" {
			phase = sched
		}
		if phase != lastPhase || prog.tty {
			prog.state(pr, phase, time.Since(start))
			lastPhase = phase
		}
	}
}

// headline is a run's headline metric, for the summary.
func headline(ev *evidence.Evidence) string {
	if ev == nil || ev.Throughput == nil {
		return "-"
	}
	metric := ev.HeadlineMetric
	if metric == "" {
		metric = "output_throughput"
	}
	v, ok := ev.Throughput.Metrics[metric]
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.4g", v)
}

func printRuns(w io.Writer, out string, p *plan) {
	fmt.Fprintf(w, "scenario %s, %d runs (%s order, seed %d) in %s\n\n", p.Scenario, len(p.Runs), p.Order, p.Seed, out)
	var rows [][]string
	for _, pr := range p.Runs {
		state, took, ev, why := "not run", "-", "-", ""
		if pr.Status != nil {
			state = pr.Status.State
		}
		if pr.Result != nil {
			took = pr.Result.Ended.Sub(pr.Result.Started).Round(10 * time.Millisecond).String()
		}
		if pr.Evidence != nil {
			ev = "accepted"
			if !pr.Evidence.Accepted {
				ev, why = "censored", runReason(pr)
			}
		} else if pr.Result != nil {
			why = runReason(pr)
		}
		rows = append(rows, []string{fmt.Sprint(pr.Index), pr.Arm, state, ev, took, headline(pr.Evidence), why})
	}
	metric := "headline metric"
	for _, pr := range p.Runs {
		if pr.Evidence != nil && pr.Evidence.HeadlineMetric != "" {
			metric = pr.Evidence.HeadlineMetric
		}
	}
	writeTable(w, []string{"run", "arm", "run", "evidence", "took", metric + " (raw)", "reason"}, rows)
}

// progress reports run states: a live line on a terminal, otherwise one line
// per change.
type progress struct {
	w     io.Writer
	tty   bool
	total int
}

func newProgress(w io.Writer, total int) *progress {
	tty := false
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &progress{w: w, tty: tty, total: total}
}

func (p *progress) state(pr *plannedRun, state string, elapsed time.Duration) {
	line := fmt.Sprintf("abbench: run %d/%d %-10s %-10s %6.1fs", pr.Index, p.total, pr.Arm, state, elapsed.Seconds())
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		return
	}
	fmt.Fprintln(p.w, line)
}

func (p *progress) done() {
	if p.tty {
		fmt.Fprintln(p.w)
	}
}

// tasksPerNode is what the largest srun step needs on each of its nodes.
func tasksPerNode(s *scenarios.Scenario) int {
	nodes := max(s.Launcher.Slurm.Nodes, 1)
	need := 1
	for _, r := range s.Roles {
		n := nodes
		if r.Slurm.Nodes > 0 {
			n = r.Slurm.Nodes
		}
		need = max(need, (r.Ranks+n-1)/n)
	}
	return need
}
