package slurm

import (
	"fmt"
	"os/exec"
	"strings"

	"github.com/abbench/abbench/internal/rundir"
)

// attempts follows the attempts of one job through its requeues: the nodes
// each one ran on, and the nodes Slurm had lost when it was requeued, so
// that a job that fails or is requeued after a node failure names the node
// (Slurm's own job record names none), and a requeued job that never ran
// again does not pass off its earlier attempt as its result.
type attempts struct {
	nodes    string   // the nodes of the attempt running, or of the last one that ran
	ran      bool     // the current attempt (since the last requeue) has run
	requeues []string // what each requeue followed, in order
}

// see takes in the job's state at one poll; restarts is the count the
// previous poll saw.
func (a *attempts) see(j job, restarts int) {
	if j.restarts > restarts {
		note := fmt.Sprintf("requeued (restart %d)", j.restarts)
		if a.ran {
			note += " after its attempt on " + a.nodes
			if lost := lostNodes(a.nodes); lost != "" {
				note += ": " + lost
			}
		}
		a.requeues = append(a.requeues, note)
		a.ran = false
	}
	if (j.state == "RUNNING" || j.state == "COMPLETING") && j.nodes != "" {
		a.nodes, a.ran = j.nodes, true
	}
}

// explain adds to an ended job's result the requeues it went through and,
// when it did not succeed, the nodes of its attempt Slurm has lost. A job
// requeued and ended (cancelled, most often: it could not start again)
// before its new attempt ran has no controller exit status of its own: the
// run directory's newest attempt is the one before the requeue, and its
// files are no result of the job; ExitCode -1 says so, and a comparison
// censors the run.
func (a *attempts) explain(res *rundir.Outcome, j job) {
	failed := j.state != "COMPLETED" || j.exit != 0
	if failed && a.ran {
		if lost := lostNodes(a.nodes); lost != "" {
			res.Detail += "; " + lost
		}
	}
	for _, note := range a.requeues {
		res.Detail += "; " + note
	}
	if failed && len(a.requeues) > 0 && !a.ran {
		res.ExitCode = -1
		res.Detail += "; it never ran again, so no attempt of it has a result"
	}
}

// lostNodes names the nodes of list (a Slurm hostlist) that Slurm counts as
// lost, down, failing or not responding, with Slurm's reason for each: ""
// when none is, or sinfo does not answer.
func lostNodes(list string) string {
	out, err := exec.Command("sinfo", "-h", "-N", "-n", list, "-o", "%N|%T|%E").Output()
	if err != nil {
		return ""
	}
	seen := map[string]bool{}
	var lost []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.SplitN(line, "|", 3)
		if len(fields) != 3 || seen[fields[0]] || !nodeLost(fields[1]) {
			continue
		}
		seen[fields[0]] = true
		s := "node " + fields[0] + " " + fields[1]
		if why := fields[2]; why != "" && why != "none" {
			s += " (" + why + ")"
		}
		lost = append(lost, s)
	}
	return strings.Join(lost, ", ")
}

// nodeLost says whether a node state sinfo prints (%T) is a lost node's:
// down or failing, or not responding (a trailing "*").
func nodeLost(state string) bool {
	return strings.HasSuffix(state, "*") || strings.HasPrefix(state, "down") || strings.HasPrefix(state, "fail")
}
