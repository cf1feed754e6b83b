// Package slurm is the launcher backend that runs each arm run as a Slurm
// job of its own: one sbatch per run, submitted with a clean environment,
// its batch script exporting the (shell-quoted) variables the controller
// needs and running the controller inside the allocation. The job is
// watched by polling scontrol (sbatch --wait polls slowly and says nothing
// of a job cancelled while pending), cancelled with scancel, and followed
// through requeues.
package slurm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/abbench/abbench/internal/launcher"
	"github.com/abbench/abbench/internal/lazyregexp"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// EnvAllocation marks every process of a job, as in the local backend.
const EnvAllocation = "ABBENCH_ALLOCATION"

// Launcher submits each spec as a Slurm job.
type Launcher struct {
	Options scenarios.SlurmOptions
	// TasksPerNode is how many tasks the job asks on each node when the
	// options name none: enough for the largest step on its nodes (steps
	// run with --overlap, sharing the allocation); 0 asks for one.
	TasksPerNode int
	// Poll is the interval between job state queries (default 200ms).
	Poll time.Duration
	// Grace is how long Cancel waits for the job to end (default 60s).
	Grace time.Duration
	// Env is the environment sbatch runs in (nil: a clean one, see cleanEnv).
	Env []string
	// Exclusive asks for nodes no other job shares (sbatch --exclusive):
	// runs submitted at the same time then run on disjoint nodes.
	Exclusive bool
}

var _ launcher.Launcher = (*Launcher)(nil)

// Name implements launcher.Launcher.
func (l *Launcher) Name() string { return "slurm" }

// keep are the only variables of abbench's environment a job script is
// submitted with; SLURM_* of an enclosing job would confuse the new job's
// steps, and anything else is not the run's business.
var keep = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TZ", "TMPDIR", "SSH_AUTH_SOCK"}

func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		for _, want := range keep {
			if k == want {
				env = append(env, kv)
			}
		}
	}
	return env
}

// shellQuote quotes s for a POSIX shell, whatever it holds.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Script is the batch script of a spec.
func (l *Launcher) Script(spec launcher.Spec, marker string) string {
	o := l.Options
	var b strings.Builder
	b.WriteString("#!/bin/bash\n")
	directive := func(format string, args ...any) { fmt.Fprintf(&b, "#SBATCH "+format+"\n", args...) }
	directive("--job-name=%s", jobName(spec))
	directive("--output=%s", rundir.SlurmOutputPattern(spec.Dir))
	directive("--chdir=%s", spec.Dir)
	directive("--requeue")
	nodes := max(o.Nodes, 1)
	directive("--nodes=%d", nodes)
	perNode := o.TasksPerNode
	if perNode == 0 {
		perNode = max(l.TasksPerNode, 1)
	}
	directive("--ntasks-per-node=%d", perNode)
	for flag, v := range map[string]string{"partition": o.Partition, "account": o.Account, "qos": o.QOS, "time": o.Time} {
		if v != "" {
			directive("--%s=%s", flag, v)
		}
	}
	if len(spec.Nodes) > 0 {
		directive("--nodelist=%s", strings.Join(spec.Nodes, ","))
	}
	if l.Exclusive && !slices.Contains(o.ExtraSbatch, "--exclusive") {
		directive("--exclusive")
	}
	for _, a := range o.ExtraSbatch {
		directive("%s", a)
	}
	if o.Container != "" {
		directive("--container-image=%s", o.Container)
		if len(o.Mounts) > 0 {
			directive("--container-mounts=%s", strings.Join(o.Mounts, ","))
		}
	}
	b.WriteString("set -u\n")
	fmt.Fprintf(&b, "export %s=%s\n", EnvAllocation, shellQuote(marker))
	for _, kv := range spec.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			fmt.Fprintf(&b, "export %s=%s\n", k, shellQuote(v))
		}
	}
	b.WriteString("exec")
	for _, a := range spec.Command {
		b.WriteString(" " + shellQuote(a))
	}
	b.WriteString("\n")
	return b.String()
}

var jobID = lazyregexp.New(`^(\d+)`)

// settle is how long an ending state must hold before a job counts as ended.
const settle = time.Second

// Start implements launcher.Launcher: it writes the batch script into the
// run directory (on the shared filesystem) and submits it.
func (l *Launcher) Start(ctx context.Context, spec launcher.Spec) (launcher.Run, error) {
	if len(spec.Command) == 0 {
		return nil, errors.New("slurm launcher: empty command")
	}
	if err := launcher.MakeDir(spec); err != nil {
		return nil, fmt.Errorf("slurm launcher: run directory: %w", err)
	}
	marker := launcher.NewMarker()
	script := filepath.Join(spec.Dir, rundir.JobScript)
	if err := os.WriteFile(script, []byte(l.Script(spec, marker)), 0o755); err != nil {
		return nil, err
	}
	env := l.Env
	if env == nil {
		env = cleanEnv()
	}
	cmd := exec.CommandContext(ctx, "sbatch", "--parsable", script)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		launcher.RemoveMade(spec) // the job was never submitted: what stays is its directory, and the error says why
		return nil, fmt.Errorf("slurm launcher: sbatch: %v: %s", err, strings.TrimSpace(string(out)))
	}
	m := jobID.FindStringSubmatch(strings.TrimSpace(string(out)))
	if m == nil {
		return nil, fmt.Errorf("slurm launcher: sbatch said %q, not a job id", out)
	}
	poll, grace := l.Poll, l.Grace
	if poll <= 0 {
		poll = 200 * time.Millisecond
	}
	if grace <= 0 {
		grace = 60 * time.Second
	}
	r := &run{spec: spec, id: m[1], marker: marker, poll: poll, grace: grace, submitted: time.Now(), Ending: launcher.NewEnding()}
	// A copy for a person in the run directory: the campaign's plan.json
	// records the job id as the run's allocation, checked, whatever happens here.
	_ = os.WriteFile(filepath.Join(spec.Dir, rundir.JobIDFile), []byte(r.id+"\n"), 0o644)
	go r.watch()
	return r, nil
}

type run struct {
	*launcher.Ending // the outcome, Wait and Done
	spec             launcher.Spec
	id               string
	marker           string
	poll             time.Duration
	grace            time.Duration
	submitted        time.Time
	mu               sync.Mutex
	state            string // Slurm's JobState
	restarts         int
	cancelled        bool
}

func (r *run) ID() string           { return r.spec.ID }
func (r *run) AllocationID() string { return "slurm-" + r.id }

// JobID is the Slurm job id.
func (r *run) JobID() string { return r.id }

// Status is the job's current Slurm state and restart count, for progress.
func (r *run) Status() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := strings.ToLower(r.state)
	if r.restarts > 0 {
		s += fmt.Sprintf(" (requeued %d)", r.restarts)
	}
	return s
}

// terminal are the job states that end a job (a requeued job goes back to PENDING).
var terminal = map[string]bool{"COMPLETED": true, "FAILED": true, "CANCELLED": true, "TIMEOUT": true, "NODE_FAIL": true,
	"PREEMPTED": true, "OUT_OF_MEMORY": true, "BOOT_FAIL": true, "DEADLINE": true, "REVOKED": true, "SPECIAL_EXIT": true}

// job is what scontrol says of a job now.
type job struct {
	state    string // JobState
	exit     int    // of the batch script
	restarts int
	why      string // Slurm's reason, unless None
	nodes    string // NodeList: the nodes of the attempt running ("" while pending)
}

// query reads the job's state, exit code, restart count, Slurm's reason and nodes.
func (r *run) query() (job, error) {
	fields, err := showJob(r.id)
	if err != nil {
		return job{}, err
	}
	j := job{state: fields["JobState"]}
	if code, _, ok := strings.Cut(fields["ExitCode"], ":"); ok {
		j.exit, _ = strconv.Atoi(code)
	}
	j.restarts, _ = strconv.Atoi(fields["Restarts"])
	if fields["Reason"] != "None" {
		j.why = fields["Reason"]
	}
	if n := fields["NodeList"]; n != "(null)" {
		j.nodes = n
	}
	return j, nil
}

// showJob is scontrol's record of job id, field by field.
func showJob(id string) (map[string]string, error) {
	out, err := exec.Command("scontrol", "-o", "show", "job", id).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("scontrol show job %s: %v: %s", id, err, strings.TrimSpace(string(out)))
	}
	fields := map[string]string{}
	for _, f := range strings.Fields(string(out)) {
		if k, v, ok := strings.Cut(f, "="); ok {
			fields[k] = v
		}
	}
	return fields, nil
}

func (r *run) watch() {
	failures := 0
	var a attempts
	for {
		j, err := r.query()
		if err != nil {
			failures++
			if failures >= 25 { // the job is gone from slurmctld: say so
				r.finish(rundir.Outcome{State: launcher.Failed, ExitCode: -1, Detail: err.Error()})
				return
			}
			time.Sleep(r.poll)
			continue
		}
		failures = 0
		r.mu.Lock()
		a.see(j, r.restarts)
		r.state, r.restarts = j.state, j.restarts
		cancelled := r.cancelled
		r.mu.Unlock()
		if terminal[j.state] {
			// A requeue passes through an ending state before the job is
			// pending again: believe an end only when it holds a while.
			time.Sleep(settle)
			if again, err := r.query(); err == nil && (!terminal[again.state] || again.restarts != j.restarts) {
				continue
			}
			res := rundir.Outcome{ExitCode: j.exit, Detail: "slurm job " + r.id + " " + j.state}
			if j.why != "" && j.state != "COMPLETED" {
				res.Detail += " (reason " + j.why + ")"
			}
			a.explain(&res, j)
			switch {
			case cancelled:
				res.State = launcher.Cancelled
			case j.state == "COMPLETED" && j.exit == 0:
				res.State = launcher.Succeeded
			default:
				res.State = launcher.Failed
			}
			r.finish(res)
			return
		}
		time.Sleep(r.poll)
	}
}

func (r *run) finish(res rundir.Outcome) {
	r.mu.Lock()
	res.AllocationID, res.Started, res.Ended = r.AllocationID(), r.submitted, time.Now()
	r.mu.Unlock()
	r.End(res)
}

// Cancel asks Slurm to end the job (SIGTERM to its steps and batch script,
// then SIGKILL after the cluster's KillWait) and waits for it to end.
func (r *run) Cancel() error {
	select {
	case <-r.Done():
		return nil
	default:
	}
	r.mu.Lock()
	r.cancelled = true
	pending := r.state == "" || r.state == "PENDING"
	r.mu.Unlock()
	if !pending {
		// First SIGTERM to the batch script: the controller tears its ranks down.
		// Best effort: a job this misses is cancelled outright after the grace.
		_ = exec.Command("scancel", "--batch", "--signal=TERM", r.id).Run()
		select {
		case <-r.Done():
			return nil
		case <-time.After(r.grace):
		}
	}
	if out, err := exec.Command("scancel", r.id).CombinedOutput(); err != nil {
		return fmt.Errorf("scancel %s: %v: %s", r.id, err, out)
	}
	// Slurm sends SIGTERM, then SIGKILL after the cluster's KillWait.
	wait := max(r.grace, 30*time.Second)
	if !r.EndsWithin(wait) {
		return fmt.Errorf("slurm job %s did not end within %s of scancel", r.id, wait)
	}
	return nil
}

func (r *run) Collect() (string, error) {
	return r.Collected(r.spec.Dir, "slurm launcher: job "+r.id)
}

// ClusterUp reports whether a Slurm cluster answers here with a node that
// can run jobs: idle, or busy (allocated, mixed, completing) with another
// job, which a test running beside another one sees. sinfo's output or
// error comes back for the message.
func ClusterUp() (bool, string) {
	out, err := exec.Command("sinfo", "-h", "-o", "%T").CombinedOutput()
	if err != nil {
		return false, fmt.Sprintf("sinfo: %v %s", err, out)
	}
	for _, state := range strings.Fields(string(out)) {
		switch strings.TrimRight(state, "*~#!%$@^-+") {
		case "idle", "mixed", "allocated", "completing":
			return true, ""
		}
	}
	return false, "sinfo: no node up: " + strings.TrimSpace(string(out))
}
