package rankwrap

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/rundir"
)

// TestMain lets the test binary be the wrapper of a rank in a container:
// given a launch directory, it runs as abbench-rank -- --launch DIR ROLE 0.
// Given RANKWRAP_TEST_ARGS (a JSON list), it runs as abbench-rank -- ARGS.
func TestMain(m *testing.M) {
	if args := os.Getenv("RANKWRAP_TEST_ARGS"); args != "" {
		var list []string
		if err := json.Unmarshal([]byte(args), &list); err != nil {
			panic(err)
		}
		if err := Main(list); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(127)
		}
		os.Exit(0)
	}
	if dir := os.Getenv("RANKWRAP_TEST_LAUNCH"); dir != "" {
		err := Main([]string{"--launch", dir, "srv", "0"})
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(127)
	}
	os.Exit(m.Run())
}

// TestContainerRankTakesTheArmOverTheImage is a rank in a container whose
// image sets both arm keys (MODE, which its arm sets too, and OTHER, which
// its arm leaves out): the arm's value wins, the key the arm leaves out is
// gone as on the host, and the image's other variables stay.
func TestContainerRankTakesTheArmOverTheImage(t *testing.T) {
	dir := t.TempDir()
	coord := filepath.Join(dir, "coord")
	launch := rundir.LaunchDirOf(coord)
	if err := os.MkdirAll(filepath.Join(coord, rundir.RanksDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(launch, 0o700); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "srv-0.log")
	l := rundir.Launch{Argv: []string{"sh", "-c", `echo "MODE=${MODE-unset} OTHER=${OTHER-unset} IMAGE=$IMAGE_ONLY"`}, Log: log,
		Env: []string{EnvToken + "=t", EnvCoord + "=" + coord, EnvRole + "=srv", EnvRank + "=0", EnvArmKeys + "=MODE,OTHER", "MODE=arm value, with a comma"}}
	data, _ := json.Marshal(l)
	if err := os.WriteFile(rundir.LaunchPath(coord, "srv", 0), data, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = []string{"RANKWRAP_TEST_LAUNCH=" + launch, "PATH=" + os.Getenv("PATH"), "MODE=image", "OTHER=image", "IMAGE_ONLY=kept"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("wrapper: %v: %s", err, out)
	}
	got, _ := os.ReadFile(log)
	if want := "MODE=arm value, with a comma OTHER=unset IMAGE=kept\n"; string(got) != want {
		t.Errorf("the rank printed %q, want %q", got, want)
	}
	data, err := os.ReadFile(rundir.RegistrationPath(coord, "srv", 0))
	if err != nil {
		t.Fatal(err)
	}
	var reg rundir.Registration
	if err := json.Unmarshal(data, &reg); err != nil {
		t.Fatal(err)
	}
	if m := reg.ArmEnv["MODE"]; m == nil || *m != "arm value, with a comma" || reg.ArmEnv["OTHER"] != nil {
		t.Errorf("registered %v, want MODE the arm's and OTHER absent", reg.ArmEnv)
	}
}

func TestMainRefusesARankThatIsNoNumber(t *testing.T) {
	if err := Main([]string{"--launch", "d", "srv", "x"}); err == nil || !strings.Contains(err.Error(), "the rank is a whole number") {
		t.Fatalf("got %v", err)
	}
}

// TestSlurmContainerRankEntersItsRunAndNamesItsNode: a rank in Slurm's
// container (one bundle for every run, Slurm's task variables unset in
// it) enters the working directory its launch file names, and registers
// the node of its one-node step. Before, it ran in the bundle's directory
// and registered no node.
func TestSlurmContainerRankEntersItsRunAndNamesItsNode(t *testing.T) {
	dir := t.TempDir()
	coord := filepath.Join(dir, "coord")
	launch := rundir.LaunchDirOf(coord)
	for _, d := range []string{filepath.Join(coord, rundir.RanksDir), launch} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	log := filepath.Join(dir, "srv-0.log")
	l := rundir.Launch{Argv: []string{"sh", "-c", `echo "pwd=$(pwd) node=$SLURMD_NODENAME"`}, Log: log, Dir: dir,
		Env: []string{EnvToken + "=t", EnvCoord + "=" + coord, EnvRole + "=srv", EnvRank + "=0"}}
	data, _ := json.Marshal(l)
	if err := os.WriteFile(rundir.LaunchPath(coord, "srv", 0), data, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Dir = "/"
	cmd.Env = []string{"RANKWRAP_TEST_LAUNCH=" + launch, "PATH=" + os.Getenv("PATH"), "SLURM_JOB_ID=7", "SLURM_STEP_ID=2",
		"SLURM_STEP_NUM_NODES=1", "SLURM_STEP_NODELIST=node2"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("wrapper: %v: %s", err, out)
	}
	got, _ := os.ReadFile(log)
	if want := "pwd=" + dir + " node=node2\n"; string(got) != want {
		t.Errorf("the rank printed %q, want %q", got, want)
	}
	var reg rundir.Registration
	if err := rundir.ReadJSON(rundir.RegistrationPath(coord, "srv", 0), &reg); err != nil {
		t.Fatal(err)
	}
	if reg.Scheduler["SLURMD_NODENAME"] != "node2" || reg.Scheduler["SLURM_STEP_ID"] != "2" {
		t.Errorf("registered %v, want the step's node and id", reg.Scheduler)
	}
}
