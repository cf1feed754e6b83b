package slurm

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/abbench/abbench/launcher"
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
	fields, err := showJob(id)
	if err != nil {
		if strings.Contains(err.Error(), "Invalid job id") {
			return nil, nil // slurmctld no longer knows it: it ended a while ago
		}
		return nil, err // nothing says it ended: starting the run again could run it twice
	}
	if !liveJobOf(fields, spec) {
		return nil, nil
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

// liveJobOf says whether scontrol's record of a job is spec's job, still
// queued or running.
func liveJobOf(fields map[string]string, spec launcher.Spec) bool {
	state := fields["JobState"]
	return state != "" && !terminal[state] && fields["JobName"] == jobName(spec) &&
		filepath.Clean(fields["WorkDir"]) == filepath.Clean(spec.Dir)
}
