package arms

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/abbench/abbench/internal/atomicfile"
	"github.com/abbench/abbench/internal/deathsig"
	"github.com/abbench/abbench/rundir"
	"github.com/abbench/abbench/scenarios"
)

// The ways ranks start inside an allocation.
const (
	RanksLocal = "local" // each rank a process of this host
	RanksSrun  = "srun"  // each role one srun step of the Slurm allocation
)

// srunStep is the one srun process that runs every rank of a role.
type srunStep struct {
	role  string
	cmd   *exec.Cmd
	ranks []*rankProc
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

// startStep writes each rank's launch file and starts the role as one srun
// step of ranks tasks; the rank wrapper of each task finds its launch file
// by SLURM_PROCID.
func (c *controller) startStep(r *scenarios.Role, ranks []*rankProc, launches []rundir.Launch) error {
	dir := rundir.LaunchDirOf(c.coord)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for i, l := range launches {
		if err := writeLaunch(c.coord, r.Name, ranks[i].rank, l); err != nil {
			return err
		}
	}
	// --overlap: the roles run at once in one allocation; without it the
	// first step holds all of the job's memory and the next ones pend.
	args := []string{"--export=ALL", "--overlap", "--ntasks=" + strconv.Itoa(r.Ranks), "--kill-on-bad-exit=0"}
	if nodes := c.slices[r.Name]; len(nodes) > 0 {
		args = append(args, "--nodes="+strconv.Itoa(len(nodes)), "--nodelist="+strings.Join(nodes, ","))
	}
	if r.Slurm.GPUsPerTask > 0 {
		args = append(args, "--gpus-per-task="+strconv.Itoa(r.Slurm.GPUsPerTask))
	}
	args = append(args, c.s.Launcher.Slurm.ExtraSrun...)
	args = append(args, r.Slurm.ExtraSrun...)
	args = append(args, c.wrapper...)
	args = append(args, "--launch", dir, r.Name)
	out, err := os.OpenFile(filepath.Join(c.dir, r.Name+".srun.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer func() { _ = out.Close() }() // srun writes the log through its own descriptor; this one wrote nothing
	cmd := exec.Command("srun", args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = c.dir, out, out
	cmd.SysProcAttr = deathsig.With(&syscall.SysProcAttr{Setpgid: true}, syscall.SIGKILL)
	if err := cmd.Start(); err != nil {
		return err
	}
	st := &srunStep{role: r.Name, cmd: cmd, ranks: ranks, done: make(chan struct{})}
	for _, p := range ranks {
		p.cmd, p.done, p.step = cmd, st.done, st
	}
	go func() {
		_ = cmd.Wait() // how the step ended is in ProcessState, read below
		for _, p := range ranks {
			p.state = cmd.ProcessState
		}
		close(st.done)
		for _, p := range ranks {
			c.exited <- p
		}
	}()
	return nil
}

// writeLaunch writes the launch file of rank of role, in the launch
// directory of coord, which it makes. The file holds the rank's whole
// environment, secrets too: readable by its owner only, and removed at
// teardown.
func writeLaunch(coord, role string, rank int, l rundir.Launch) error {
	if err := os.MkdirAll(rundir.LaunchDirOf(coord), 0o700); err != nil {
		return err
	}
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	return atomicfile.Publish(rundir.LaunchPath(coord, role, rank), data, 0o600)
}

// stepID is the Slurm step id of a role, from its ranks' registrations.
func (c *controller) stepID(role string) string {
	for _, p := range c.procs {
		if p.role != role {
			continue
		}
		if reg, ok, _ := rundir.ReadRegistration(c.coord, role, p.rank); ok && reg.Scheduler["SLURM_STEP_ID"] != "" {
			return reg.Scheduler["SLURM_JOB_ID"] + "." + reg.Scheduler["SLURM_STEP_ID"]
		}
	}
	return ""
}

// stopSteps is teardown for srun steps: SIGTERM to every task of each step
// (scancel --signal), the grace, then the step cancelled and srun killed.
func (c *controller) stopSteps(grace, limit time.Duration) {
	deadline := time.Now().Add(limit)
	var steps []*srunStep
	for _, p := range c.procs {
		if p.step != nil && !slices.Contains(steps, p.step) {
			steps = append(steps, p.step)
		}
		p.stopping = true
	}
	ids := map[*srunStep]string{}
	for _, st := range steps {
		ids[st] = c.stepID(st.role)
		if isDone(st.done) {
			continue
		}
		if ids[st] != "" {
			// Best effort: a step scancel misses is killed below after the grace.
			_ = exec.Command("scancel", "--signal=TERM", ids[st]).Run()
		} else {
			st.cmd.Process.Signal(syscall.SIGTERM) // srun ends its step itself
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
		for _, p := range st.ranks {
			p.killed = true
		}
		if ids[st] != "" {
			_ = exec.Command("scancel", ids[st]).Run() // srun's own group is killed next either way
		}
		syscall.Kill(-st.cmd.Process.Pid, syscall.SIGKILL)
	}
	for _, st := range steps {
		select {
		case <-st.done:
		case <-time.After(max(time.Until(deadline), time.Second)):
		}
	}
}

func isDone(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
