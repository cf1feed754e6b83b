package rankwrap

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/abbench/abbench/internal/rundir"
)

// wrapper runs the test binary as abbench-rank -- args with env.
func wrapper(t *testing.T, env []string, args ...string) ([]byte, error) {
	t.Helper()
	data, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append([]string{"RANKWRAP_TEST_ARGS=" + string(data)}, env...)
	return cmd.CombinedOutput()
}

// --install copies the wrapper, whole and executable, under its own name
// into a directory (an init container's into the emptyDir a rank
// container of another image shares).
func TestInstallCopiesTheWrapper(t *testing.T) {
	dir := t.TempDir()
	if out, err := wrapper(t, nil, "--install", dir); err != nil {
		t.Fatalf("--install: %v: %s", err, out)
	}
	self, _ := os.ReadFile(os.Args[0])
	copied := filepath.Join(dir, filepath.Base(os.Args[0]))
	got, err := os.ReadFile(copied)
	if err != nil || !bytes.Equal(got, self) {
		t.Fatalf("the copy (%v) is not the wrapper", err)
	}
	if fi, _ := os.Stat(copied); fi.Mode()&0o111 == 0 {
		t.Fatalf("the copy is not executable: %v", fi.Mode())
	}
	if _, err := wrapper(t, nil, "--install", filepath.Join(dir, "missing")); err == nil {
		t.Fatal("--install into a missing directory: no error")
	}
}

// --launch-image DIR ROLE is a rank pod of its role's own image: its rank
// the Job's completion index, the image's environment kept (its PATH
// finds the server), the launch file's over it and no arm key of the
// image's.
func TestLaunchImageKeepsTheImagesEnvironment(t *testing.T) {
	dir := t.TempDir()
	coord := filepath.Join(dir, "coord")
	launch := rundir.LaunchDirOf(coord)
	bin := filepath.Join(dir, "image-bin")
	for _, d := range []string{filepath.Join(coord, rundir.RanksDir), launch, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	server := "#!" + sh + "\necho \"rank=$ABBENCH_RANK MODE=${MODE-unset} IMAGE=$IMAGE_ONLY\"\n"
	if err := os.WriteFile(filepath.Join(bin, "server"), []byte(server), 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "srv-1.log")
	l := rundir.Launch{Argv: []string{"server"}, Log: log,
		Env: []string{EnvToken + "=t", EnvCoord + "=" + coord, EnvRole + "=srv", EnvRank + "=1", EnvArmKeys + "=MODE", "MODE=arm"}}
	data, _ := json.Marshal(l)
	if err := os.WriteFile(rundir.LaunchPath(coord, "srv", 1), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := wrapper(t, []string{"JOB_COMPLETION_INDEX=1", "PATH=" + bin, "MODE=image", "IMAGE_ONLY=kept"}, "--launch-image", launch, "srv"); err != nil {
		t.Fatalf("wrapper: %v: %s", err, out)
	}
	if got, _ := os.ReadFile(log); string(got) != "rank=1 MODE=arm IMAGE=kept\n" {
		t.Errorf("the rank printed %q", got)
	}
	if _, ok, err := rundir.ReadRegistration(coord, "srv", 1); !ok || err != nil {
		t.Errorf("no registration of srv 1 (%v)", err)
	}
}
