// Package srun is the rank driver that starts each role as one srun step
// of the Slurm allocation the controller runs in (--ranks srun): each
// task is a rank, its rank wrapper finding its launch file by
// SLURM_PROCID.
package srun

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/abbench/abbench/internal/arms/ranks"
	"github.com/abbench/abbench/internal/deathsig"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// Name is the driver's name, as --ranks takes it.
const Name = "srun"

// srunStep is the one srun process that runs every rank of a role.
type srunStep struct {
	role  string
	cmd   *exec.Cmd
	ranks []*ranks.Rank
	done  chan struct{}
}

// jobNodes expands the allocation's node list.
func jobNodes() ([]string, error) {
	list := os.Getenv("SLURM_JOB_NODELIST")
	if list == "" {
		return nil, fmt.Errorf("ranks started by srun need a Slurm allocation, and SLURM_JOB_NODELIST is not set")
	}
	out, err := exec.Command("scontrol", "show", "hostnames", list).Output()
	if err != nil {
		return nil, fmt.Errorf("scontrol show hostnames %s: %w", list, err)
	}
	return strings.Fields(string(out)), nil
}

// sliceNodes gives each role with slurm.nodes a disjoint slice of the
// allocation's nodes, in role order.
func sliceNodes(s *scenarios.Scenario, nodes []string) (map[string][]string, error) {
	slices := map[string][]string{}
	next := 0
	for _, r := range s.Roles {
		if r.Slurm.Nodes == 0 {
			continue
		}
		if next+r.Slurm.Nodes > len(nodes) {
			return nil, fmt.Errorf("role %s asks %d nodes of its own, but only %d of the allocation's %d are left (%s)",
				r.Name, r.Slurm.Nodes, len(nodes)-next, len(nodes), strings.Join(nodes, ","))
		}
		slices[r.Name] = nodes[next : next+r.Slurm.Nodes]
		next += r.Slurm.Nodes
	}
	return slices, nil
}

// Driver starts each role as one srun step of the Slurm allocation the
// controller runs in.
type Driver struct {
	s       *scenarios.Scenario
	dir     string   // the run's directory: srun's working directory and its log's
	coord   string   // the run's coordination directory: launch files, registrations
	wrapper []string // the rank wrapper each task runs
	// slices are the node slices of roles that take nodes of their own.
	slices map[string][]string
	// containers runs the roles with container:.
	containers Containers
	mu         sync.Mutex
	steps      []*srunStep
}

// New is the driver of a run of s in dir, its coordination directory
// coord, each task run by wrapper (in a container, c's); each role with
// slurm.nodes gets its slice of the allocation's nodes.
func New(s *scenarios.Scenario, dir, coord string, wrapper []string, c Containers) (*Driver, error) {
	nodes, err := jobNodes()
	if err != nil {
		return nil, err
	}
	slices, err := sliceNodes(s, nodes)
	if err != nil {
		return nil, err
	}
	return &Driver{s: s, dir: dir, coord: coord, wrapper: wrapper, slices: slices, containers: c}, nil
}

func (d *Driver) Name() string { return Name }

// Remote is true: the tasks run on the allocation's nodes, tracked by Slurm.
func (d *Driver) Remote() bool { return true }

// Start writes each rank's launch file and starts the role as one srun
// step of ranks tasks; the rank wrapper of each task finds its launch file
// by SLURM_PROCID.
func (d *Driver) Start(r *scenarios.Role, rs []*ranks.Rank) error {
	if err := d.start(r, rs); err != nil {
		for _, rk := range rs {
			rk.End(ranks.Exit{Code: -1, Reason: "was never started"}) // no step to wait for at teardown
		}
		return fmt.Errorf("as an srun step: %w", err)
	}
	return nil
}

func (d *Driver) start(r *scenarios.Role, rs []*ranks.Rank) error {
	dir := rundir.LaunchDirOf(d.coord)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if r.Container != nil {
		// Every run shares the image's bundle: the wrapper enters the
		// run's directory itself.
		for _, rk := range rs {
			if err := ranks.LaunchElsewhereIn(d.coord, rk, d.dir); err != nil {
				return err
			}
		}
		steps, err := d.containerSteps(r, rs)
		if err != nil {
			return err
		}
		for i, args := range steps {
			if err := d.startStep(r.Name, args, rs[i:i+1]); err != nil {
				return err
			}
		}
		return nil
	}
	for _, rk := range rs {
		if err := ranks.LaunchElsewhere(d.coord, rk); err != nil {
			return err
		}
	}
	// --overlap: the roles run at once in one allocation; without it the
	// first step holds all of the job's memory and the next ones pend.
	args := []string{"--export=ALL", "--overlap", "--ntasks=" + strconv.Itoa(r.Ranks), "--kill-on-bad-exit=0"}
	if nodes := d.slices[r.Name]; len(nodes) > 0 {
		args = append(args, "--nodes="+strconv.Itoa(len(nodes)), "--nodelist="+strings.Join(nodes, ","))
	}
	args = append(args, d.common(r)...)
	args = append(args, d.wrapper...)
	return d.startStep(r.Name, append(args, "--launch", dir, r.Name), rs)
}

// common are the srun arguments of every step of r: its GPUs, the
// scenario's extra_srun and the role's.
func (d *Driver) common(r *scenarios.Role) []string {
	var args []string
	if r.Slurm.GPUsPerTask > 0 {
		args = append(args, "--gpus-per-task="+strconv.Itoa(r.Slurm.GPUsPerTask))
	}
	args = append(args, d.s.Launcher.Slurm.ExtraSrun...)
	return append(args, r.Slurm.ExtraSrun...)
}

// startStep starts srun with args, a step that runs the ranks rs of role.
func (d *Driver) startStep(role string, args []string, rs []*ranks.Rank) error {
	out, err := os.OpenFile(filepath.Join(d.dir, role+".srun.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer func() { _ = out.Close() }() // srun writes the log through its own descriptor; this one wrote nothing
	cmd := exec.Command("srun", args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = d.dir, out, out
	cmd.SysProcAttr = deathsig.With(&syscall.SysProcAttr{Setpgid: true}, syscall.SIGKILL)
	if err := cmd.Start(); err != nil {
		return err
	}
	st := &srunStep{role: role, cmd: cmd, ranks: rs, done: make(chan struct{})}
	for _, rk := range rs {
		rk.SetPID(cmd.Process.Pid)
	}
	d.mu.Lock()
	d.steps = append(d.steps, st)
	d.mu.Unlock()
	go func() {
		_ = cmd.Wait() // how the step ended is in ProcessState, read below
		// srun reports a task a signal ended as status 128+signal.
		for _, rk := range rs {
			rk.End(ranks.ExitOf(cmd.ProcessState, true))
		}
		// Only then is the step done: Stop returns on it, and the
		// controller judges every rank by its exit at once (closed first,
		// a rank could still say "did not end" at teardown).
		close(st.done)
	}()
	return nil
}

// stepID is the Slurm step id of a step, from its ranks' registrations.
func (d *Driver) stepID(st *srunStep) string {
	for _, rk := range st.ranks {
		if reg, ok, _ := rundir.ReadRegistration(d.coord, rk.Role, rk.Index); ok && reg.Scheduler["SLURM_STEP_ID"] != "" {
			return reg.Scheduler["SLURM_JOB_ID"] + "." + reg.Scheduler["SLURM_STEP_ID"]
		}
	}
	return ""
}

// Stop is teardown for srun steps: SIGTERM to every task of each step
// (scancel --signal), the grace, then the step cancelled and srun killed.
func (d *Driver) Stop(grace, limit time.Duration) []reason.Reason {
	deadline := time.Now().Add(limit)
	d.mu.Lock()
	steps := slices.Clone(d.steps)
	d.mu.Unlock()
	ids := map[*srunStep]string{}
	for _, st := range steps {
		ids[st] = d.stepID(st)
		if isDone(st.done) {
			continue
		}
		if ids[st] != "" {
			// Best effort: a step scancel misses is killed below after the grace.
			_ = exec.Command("scancel", "--signal=TERM", ids[st]).Run()
		} else {
			_ = st.cmd.Process.Signal(syscall.SIGTERM) // srun ends its step itself
		}
	}
	graceEnd := time.Now().Add(min(grace, limit))
	for _, st := range steps {
		select {
		case <-st.done:
		case <-time.After(time.Until(graceEnd)):
		}
	}
	for _, st := range steps {
		if isDone(st.done) {
			continue
		}
		for _, rk := range st.ranks {
			rk.Kill()
		}
		if ids[st] != "" {
			_ = exec.Command("scancel", ids[st]).Run() // srun's own group is killed next either way
		}
		_ = syscall.Kill(-st.cmd.Process.Pid, syscall.SIGKILL) // a group already gone has nothing to kill
	}
	for _, st := range steps {
		select {
		case <-st.done:
		case <-time.After(max(time.Until(deadline), time.Second)):
		}
	}
	return nil
}

func isDone(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
