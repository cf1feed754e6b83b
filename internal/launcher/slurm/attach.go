package slurm

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/launcher"
)

var _ launcher.Attacher = (*Launcher)(nil)

// jobName is the name of spec's job: abbench-N-ARM.
func jobName(spec launcher.Spec) string { return "abbench-" + spec.ID }

// Attach implements launcher.Attacher: allocation is slurm-JOBID, and the
// job is spec's when its name and working directory are the ones Start
// gives it (a job id Slurm used again for another job is not).
func (l *Launcher) Attach(spec launcher.Spec, allocation string) (launcher.Run, error) {
	id, ok := strings.CutPrefix(allocation, "slurm-")
	if !ok || id == "" || strings.TrimLeft(id, "0123456789") != "" {
		return nil, nil
	}
	fields, err := knownJob(id, spec)
	if err != nil {
		return nil, err // nothing says it ended: starting the run again could run it twice
	}
	if fields == nil || !liveJobOf(fields, spec) {
		return nil, nil // slurmctld no longer knows it (it ended a while ago), or it is another's
	}
	poll, grace := l.Poll, l.Grace
	if poll <= 0 {
		poll = 200 * time.Millisecond
	}
	if grace <= 0 {
		grace = 60 * time.Second
	}
	r := &run{spec: spec, id: id, poll: poll, grace: grace, submitted: time.Now(), Ending: launcher.NewEnding()}
	go r.watch()
	return r, nil
}

// squeueFormat is what knownJob asks of squeue, the working directory last
// (it may hold the separator).
const squeueFormat = "%i|%T|%j|%Z"

// knownJob is slurmctld's record of job id among the jobs of spec's name,
// in scontrol's field names, or nil when it knows no such job. squeue
// answers a name of no job with an empty list: a job slurmctld forgot is
// told from that answer, never from the words of an error (scontrol says
// "Invalid job id" for it, and fails alike when it cannot reach Slurm).
func knownJob(id string, spec launcher.Spec) (map[string]string, error) {
	out, err := exec.Command("squeue", "--noheader", "--states=all", "--name="+jobName(spec), "--format="+squeueFormat).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("squeue of job %s: %v: %s", id, err, strings.TrimSpace(string(ee.Stderr)))
		}
		return nil, fmt.Errorf("squeue of job %s: %w", id, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.SplitN(strings.TrimSpace(line), "|", 4)
		if len(f) == 4 && f[0] == id {
			return map[string]string{"JobId": f[0], "JobState": f[1], "JobName": f[2], "WorkDir": f[3]}, nil
		}
	}
	return nil, nil
}

// liveJobOf says whether scontrol's record of a job is spec's job, still
// queued or running.
func liveJobOf(fields map[string]string, spec launcher.Spec) bool {
	state := fields["JobState"]
	return state != "" && !terminal[state] && fields["JobName"] == jobName(spec) &&
		filepath.Clean(fields["WorkDir"]) == filepath.Clean(spec.Dir)
}
