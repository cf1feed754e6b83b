package srun

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/arms/ranks"
	"github.com/abbench/abbench/internal/container"
	"github.com/abbench/abbench/internal/container/oci"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// fakeImage is an image as abbench run --launcher slurm writes it out,
// without docker: its image.json, an empty root filesystem and its bundle.
func fakeImage(t *testing.T, out, digest string) oci.Image {
	t.Helper()
	dir := oci.Dir(filepath.Join(out, oci.ImagesDir), digest)
	if err := os.MkdirAll(filepath.Join(dir, "rootfs"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(oci.Image{Digest: digest, Env: []string{"PATH=/bin", "MODE=image"}, Shared: out})
	if err := os.WriteFile(filepath.Join(dir, "image.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	img, err := oci.Read(filepath.Join(out, oci.ImagesDir), digest)
	if err != nil {
		t.Fatal(err)
	}
	if err := (oci.Bundle{Image: img, Mounts: oci.Mounts(out, "/w/abbench-rank", nil)}).Write(); err != nil {
		t.Fatal(err)
	}
	return img
}

// startRecorded starts role's ranks with a stand-in srun that records
// each step's arguments (and says, to --help, whether it has pyxis's
// options), and returns each step's arguments once every rank ended.
func startRecorded(t *testing.T, pyxis bool, role *scenarios.Role, dir string) [][]string {
	t.Helper()
	bin, calls := t.TempDir(), t.TempDir()
	help := "      --container             Path to OCI container bundle"
	if pyxis {
		help += "\n      --container-image=[USER@][REGISTRY#]IMAGE[:TAG]|PATH"
	}
	for name, body := range map[string]string{
		"scontrol": "#!/bin/sh\necho node1\necho node2\n",
		"srun":     "#!/bin/sh\nif [ \"$1\" = --help ]; then echo '" + help + "'; exit 0; fi\nprintf '%s\\n' \"$@\" > " + calls + "/$$\n",
	} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("SLURM_JOB_NODELIST", "node[1-2]")
	s := &scenarios.Scenario{Roles: []scenarios.Role{*role}}
	d, err := New(s, dir, rundir.Coord(dir), []string{"host-wrapper", "--"}, Containers{Wrapper: "/w/abbench-rank", Pyxis: pyxis})
	if err != nil {
		t.Fatal(err)
	}
	var rs []*ranks.Rank
	for i := range role.Ranks {
		rs = append(rs, ranks.NewRank(role.Name, i, filepath.Join(dir, rundir.RankName(role.Name, i)+".log"), nil))
	}
	if err := d.Start(role, rs); err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		select {
		case <-r.Done():
		case <-time.After(30 * time.Second):
			t.Fatalf("%s's step did not end", r.Name())
		}
	}
	entries, err := os.ReadDir(calls)
	if err != nil {
		t.Fatal(err)
	}
	var steps [][]string
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(calls, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		steps = append(steps, strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"))
	}
	slices.SortFunc(steps, func(a, b []string) int { return strings.Compare(a[len(a)-1], b[len(b)-1]) })
	return steps
}

// TestContainerRanksRunInTheImagesBundle: under --ranks srun a role with
// container: runs each rank as a step of one task (Slurm 22.05 runs one
// task a node in a container) in the bundle of its pinned image, the
// step exporting nothing of the controller's (Slurm would set it over the
// image's ENV), the static wrapper told its rank, and each launch file
// naming the run's directory (the bundle, shared by every run, cannot).
// Before, such a role was refused under srun.
func TestContainerRanksRunInTheImagesBundle(t *testing.T) {
	out := t.TempDir()
	digest := "sha256:" + strings.Repeat("ab", 32)
	img := fakeImage(t, out, digest)
	dir := filepath.Join(out, "runs", "1-a", "tok")
	role := &scenarios.Role{Name: "ctx", Ranks: 2, Command: []string{"true"}, Slurm: scenarios.RoleSlurm{Nodes: 2},
		Container: &scenarios.Container{Image: "sim:1", Digest: digest, Images: filepath.Join(out, oci.ImagesDir)}}
	steps := startRecorded(t, false, role, dir)
	if len(steps) != 2 {
		t.Fatalf("%d steps, want one a rank: %q", len(steps), steps)
	}
	for i, args := range steps {
		want := []string{"--export=NONE", "--overlap", "--ntasks=1", "--nodes=1", "--kill-on-bad-exit=0", "--nodelist=node" + string(rune('1'+i)),
			"--container=" + img.Bundle(), container.WrapperPath, "--", "--launch", rundir.LaunchDirOf(rundir.Coord(dir)), "ctx", string(rune('0' + i))}
		if !slices.Equal(args, want) {
			t.Errorf("rank %d's step:\n got %q\nwant %q", i, args, want)
		}
		var l rundir.Launch
		if err := rundir.ReadJSON(rundir.LaunchFile(rundir.LaunchDirOf(rundir.Coord(dir)), "ctx", i), &l); err != nil {
			t.Fatal(err)
		}
		if l.Dir != dir {
			t.Errorf("rank %d's launch file names working directory %q, want the run's %s", i, l.Dir, dir)
		}
	}
}

// TestContainerRanksUnderPyxis: where srun has pyxis's options, the same
// keys map to them: the image's squashfs to --container-image, the
// mounts (the campaign's directory, /tmp, the wrapper, read only) to
// --container-mounts, the run's directory to --container-workdir, and the
// device variables of the step to --container-env (pyxis lets the image's
// values win over the host's, but for those).
func TestContainerRanksUnderPyxis(t *testing.T) {
	out := t.TempDir()
	digest := "sha256:" + strings.Repeat("cd", 32)
	img := fakeImage(t, out, digest)
	dir := filepath.Join(out, "runs", "1-a", "tok")
	role := &scenarios.Role{Name: "ctx", Ranks: 1, Command: []string{"true"}, Container: &scenarios.Container{Image: "sim:1", Digest: digest,
		Images: filepath.Join(out, oci.ImagesDir), Mounts: []string{"/models:/models:ro"}}}
	steps := startRecorded(t, true, role, dir)
	if len(steps) != 1 {
		t.Fatalf("%d steps, want 1: %q", len(steps), steps)
	}
	want := []string{"--export=NONE", "--overlap", "--ntasks=1", "--nodes=1", "--kill-on-bad-exit=0",
		"--container-image=" + img.Squashfs(),
		"--container-mounts=/tmp:/tmp," + out + ":" + out + ",/w/abbench-rank:" + container.WrapperPath + ":ro,/models:/models:ro",
		"--container-workdir=" + dir, "--container-env=CUDA_VISIBLE_DEVICES,GPU_DEVICE_ORDINAL,ROCR_VISIBLE_DEVICES",
		"--no-container-mount-home", "--no-container-remap-root",
		container.WrapperPath, "--", "--launch", rundir.LaunchDirOf(rundir.Coord(dir)), "ctx", "0"}
	if !slices.Equal(steps[0], want) {
		t.Errorf("the step:\n got %q\nwant %q", steps[0], want)
	}
}
