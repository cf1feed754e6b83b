package slurm

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/launcher"
)

// fakeScontrol puts an scontrol on PATH that prints the job record in
// file state (JobState=... and the rest), or fails as Slurm does for a
// job it does not know when the file is empty; and an squeue that lists
// that job when its name is the one asked, as squeue --format=%i|%T|%j|%Z
// does, and nothing (status 0) otherwise.
func fakeScontrol(t *testing.T) (state string) {
	t.Helper()
	bin := t.TempDir()
	state = filepath.Join(bin, "job")
	script := "#!/bin/sh\nif [ -s " + state + " ]; then cat " + state + "; else echo 'slurm_load_jobs error: Invalid job id specified' >&2; exit 1; fi\n"
	squeue := `#!/bin/sh
[ -s ` + state + ` ] || exit 0
for f in $(cat ` + state + `); do case $f in JobId=*) id=${f#JobId=};; JobName=*) name=${f#JobName=};; JobState=*) st=${f#JobState=};; WorkDir=*) wd=${f#WorkDir=};; esac; done
for a; do case $a in --name=*) [ "${a#--name=}" = "$name" ] || exit 0;; esac; done
echo "$id|$st|$name|$wd"
`
	for name, content := range map[string]string{"scontrol": script, "squeue": squeue} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	return state
}

func writeJob(t *testing.T, file, record string) {
	t.Helper()
	if err := os.WriteFile(file, []byte(record), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A resumed campaign waits for its run's job while Slurm still runs it,
// and only for a job that is the run's: another name or working
// directory (a job id used again), an ended job, or one Slurm forgot is
// no allocation to wait for.
func TestAttachWaitsOnlyForTheRunsLiveJob(t *testing.T) {
	state := fakeScontrol(t)
	spec := launcher.Spec{ID: "4-a", Dir: "/shared/camp/runs/4-a"}
	l := &Launcher{Poll: 20 * time.Millisecond, Grace: time.Second}
	for _, c := range []struct{ record, allocation string }{
		{"JobId=7 JobName=abbench-4-a JobState=RUNNING WorkDir=/elsewhere/runs/4-a ExitCode=0:0", "slurm-7"},
		{"JobId=7 JobName=abbench-4-b JobState=PENDING WorkDir=/shared/camp/runs/4-a ExitCode=0:0", "slurm-7"},
		{"JobId=7 JobName=abbench-4-a JobState=COMPLETED WorkDir=/shared/camp/runs/4-a ExitCode=0:0", "slurm-7"},
		{"", "slurm-7"},
		{"JobId=7 JobName=abbench-4-a JobState=RUNNING WorkDir=/shared/camp/runs/4-a ExitCode=0:0", "local-7"},
	} {
		writeJob(t, state, c.record)
		if r, err := l.Attach(spec, c.allocation); r != nil || err != nil {
			t.Errorf("%s %q: attached %v (err %v), want nothing", c.allocation, c.record, r, err)
		}
	}
	writeJob(t, state, "JobId=7 JobName=abbench-4-a JobState=RUNNING WorkDir=/shared/camp/runs/4-a/ ExitCode=0:0 Restarts=0 Reason=None")
	r, err := l.Attach(spec, "slurm-7")
	if err != nil || r == nil {
		t.Fatalf("the run's running job: %v, %v", r, err)
	}
	if r.AllocationID() != "slurm-7" {
		t.Errorf("allocation %s, want slurm-7", r.AllocationID())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := r.Wait(ctx); err == nil {
		t.Fatal("Wait returned while the job runs")
	}
	writeJob(t, state, "JobId=7 JobName=abbench-4-a JobState=COMPLETED WorkDir=/shared/camp/runs/4-a ExitCode=3:0 Restarts=0 Reason=None")
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := r.Wait(ctx)
	if err != nil || res.State != launcher.Failed || res.ExitCode != 3 {
		t.Fatalf("the job's end: %+v, %v; want failed with 3", res, err)
	}
}

// Slurm failing to answer says nothing of the job, whatever its words
// (even "Invalid job id"): the run is not started again on that. A job
// it forgot is its answer, an empty list, not the words of an error.
func TestAttachRefusesToGuessWhenSlurmDoesNotAnswer(t *testing.T) {
	for _, said := range []string{"Unable to contact slurm controller", "slurm_load_jobs error: Invalid job id specified (Unable to contact slurm controller)"} {
		bin := t.TempDir()
		fail := "#!/bin/sh\necho '" + said + "' >&2\nexit 1\n"
		for _, name := range []string{"scontrol", "squeue"} {
			if err := os.WriteFile(filepath.Join(bin, name), []byte(fail), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		t.Setenv("PATH", bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
		if r, err := (&Launcher{}).Attach(launcher.Spec{ID: "1-a", Dir: "/d"}, "slurm-9"); err == nil || r != nil {
			t.Errorf("Slurm saying %q: attached %v, err %v; want an error", said, r, err)
		}
	}
}
