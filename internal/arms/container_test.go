package arms

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/container/containertest"

	"github.com/abbench/abbench/internal/container"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// containerScenario runs the ctx ranks in the container %[1]s and the
// frontend in %[3]s (inImage, or none); gen and the client stay on the
// host.
const containerScenario = `name: sim
arms:
  async: {env: {DISAGGSIM_TERMINAL: "1"}}
  blocking: {env: {DISAGGSIM_TERMINAL: "0"}}
baseline: blocking
env: {DISAGGSIM_PEER_READY: "1", DISAGGSIM_LINK_DELAY: 1ms}
workload: {prompts: %[2]s}
roles:
  - {name: ctx, ranks: 2, arm_env: true, ready: {log: 'ready rank='}, %[1]s
     command: [disaggsim, ctx, --rank, "{{.Rank}}", --ranks, "2", --gen-ranks, "1", --coord, "{{.Coord}}"]}
  - {name: gen, ready: {log: 'ready rank='}, command: [disaggsim, gen, --coord, "{{.Coord}}"]}
  - {name: frontend, %[3]s after: [ctx, gen], ready: {log: 'ready addr='}, command: [disaggsim, frontend, --coord, "{{.Coord}}", --ctx-ranks, "2", --gen-ranks, "1"]}
  - {name: client, client: true, after_ready: true,
     command: [disaggsim, client, --coord, "{{.Coord}}", --prompts, %[2]s, --requests, "64", --concurrency, "8", --out, "{{.Out}}/throughput.json"]}
evidence:
  mode: {role: ctx, pattern: 'mode rank=(?P<rank>\d+) phase=\S+ terminal=(?P<DISAGGSIM_TERMINAL>\S+)'}
deadlines: {ready: 30s, client: 60s, drain: 2s, teardown: 10s, kill_grace: 2s}
`

// inImage is the container: of a role of containerScenario.
func inImage(image string) string { return `container: {image: "` + image + `"},` }

// resetEntrypoint is an image's entrypoint that sets DISAGGSIM_TERMINAL
// to 0 whatever it was given, then execs its arguments.
const resetEntrypoint = `package main

import (
	"os"
	"os/exec"
	"syscall"
)

func main() {
	os.Setenv("DISAGGSIM_TERMINAL", "0")
	path, err := exec.LookPath(os.Args[1])
	if err != nil {
		panic(err)
	}
	panic(syscall.Exec(path, os.Args[1:], os.Environ()))
}
`

// simImage builds an image FROM scratch of a static disaggsim whose ENV
// sets the arm key to the blocking arm's value; with reset, its
// entrypoint also resets it after the wrapper.
func simImage(t *testing.T, reset bool) string {
	t.Helper()
	df := "FROM scratch\nCOPY disaggsim /usr/local/bin/disaggsim\nENV PATH=/usr/local/bin DISAGGSIM_TERMINAL=0\n"
	pkgs := []string{"../../cmd/disaggsim"}
	if reset {
		src := t.TempDir()
		os.WriteFile(filepath.Join(src, "go.mod"), []byte("module reset\n\ngo 1.22\n"), 0o644)
		os.WriteFile(filepath.Join(src, "main.go"), []byte(resetEntrypoint), 0o644)
		pkgs = append(pkgs, src)
		df += "COPY reset /reset\nENTRYPOINT [\"/reset\"]\n"
	}
	tag, _ := containertest.StaticImage(t, "sim", df, pkgs...)
	return tag
}

// pinnedScenario is containerScenario of image, pinned here.
func pinnedScenario(t *testing.T, image string) *scenarios.Scenario {
	t.Helper()
	prompts, _ := filepath.Abs("../../testdata/prompts-256.jsonl")
	s := loadScenario(t, fmt.Sprintf(containerScenario, inImage(image), prompts, ""))
	if err := container.Pin(context.Background(), container.Docker{}, s, nil); err != nil {
		t.Fatal(err)
	}
	return s
}

// noContainerOf fails t if a container of st's run is left.
func noContainerOf(t *testing.T, st *rundir.Status) {
	t.Helper()
	if left, err := (container.Docker{}).OfRun(context.Background(), st.Token); err != nil || len(left) > 0 {
		t.Errorf("containers %v of the run are left (%v)", left, err)
	}
}

// TestContainerRanksRunTheArmNotTheImage runs the async arm's ctx ranks
// in an image whose ENV says blocking: each registers and logs the arm's
// value, the run records the image's digest, and no container is left.
func TestContainerRanksRunTheArmNotTheImage(t *testing.T) {
	s := pinnedScenario(t, simImage(t, false))
	st := runArm(t, context.Background(), s, "async", true)
	noContainerOf(t, st)
	if st.State != rundir.StateSucceeded {
		l, _ := os.ReadFile(filepath.Join(st.Dir, "ctx-0.log"))
		t.Fatalf("%s: %v\n%s", st.State, st.Reasons, l)
	}
	for rank := range 2 {
		reg, ok, _ := rundir.ReadRegistration(rundir.Coord(st.Dir), "ctx", rank)
		if !ok || reg.ArmEnv["DISAGGSIM_TERMINAL"] == nil || *reg.ArmEnv["DISAGGSIM_TERMINAL"] != "1" {
			t.Errorf("ctx rank %d registered %+v, want the arm's 1 over the image's 0", rank, reg.ArmEnv)
		}
		log, _ := os.ReadFile(filepath.Join(st.Dir, fmt.Sprintf("ctx-%d.log", rank)))
		if !strings.Contains(string(log), "terminal=1") || strings.Contains(string(log), "terminal=0") {
			t.Errorf("ctx rank %d logged:\n%s\nwant terminal=1 only", rank, log)
		}
	}
	if len(st.Containers) != 1 || st.Containers[0].Digest != s.Roles[0].Container.Digest {
		t.Errorf("status records containers %+v, want ctx's pinned digest %s", st.Containers, s.Roles[0].Container.Digest)
	}
}

// TestImageEntrypointThatResetsTheArmIsCensored: the wrapper registers the
// arm's value, the image's entrypoint then resets it: the mode lines say
// so before any client traffic.
func TestImageEntrypointThatResetsTheArmIsCensored(t *testing.T) {
	st := runArm(t, context.Background(), pinnedScenario(t, simImage(t, true)), "async", true)
	noContainerOf(t, st)
	if st.State != rundir.StateFailed || !strings.Contains(codes(st), string(reason.ArmModeMismatch)) || strings.Contains(codes(st), string(reason.ArmEnvMissing)) {
		t.Fatalf("state %s, reasons %v: want arm-mode-mismatch (the rank was given the arm's value)", st.State, st.Reasons)
	}
	if _, err := os.Stat(filepath.Join(st.Dir, "client-0.log")); err == nil {
		t.Error("the client started although the ranks ran the other arm's mode")
	}
}

// fakeDocker is a docker client whose containers all claim to be of
// image other, whatever they were created from; it creates nothing.
const fakeDocker = `#!/bin/sh
case "$1" in
container) echo "%s" ;;
ps) ;;
esac
exit 0
`

// TestContainerOfAnotherImageIsNotStarted: a runtime that made a rank's
// container from another image than the pinned one: the rank is not
// started, and the run stops with image-mismatch naming both digests.
func TestContainerOfAnotherImageIsNotStarted(t *testing.T) {
	pinned, other := "sha256:"+strings.Repeat("a", 64), "sha256:"+strings.Repeat("b", 64)
	prompts, _ := filepath.Abs("../../testdata/prompts-256.jsonl")
	s := loadScenario(t, fmt.Sprintf(containerScenario, inImage("sim:1"), prompts, ""))
	s.Roles[0].Container.Digest = pinned
	docker := filepath.Join(t.TempDir(), "docker")
	os.WriteFile(docker, []byte(fmt.Sprintf(fakeDocker, other)), 0o755)
	self := filepath.Join(simDir, "abbench")
	if _, err := os.Stat(self); err != nil {
		os.Link(os.Args[0], self)
	}
	res, err := Run(context.Background(), s, "async", Options{Out: t.TempDir(), Self: self, Docker: docker,
		Inherited: append(os.Environ(), "PATH="+simDir+string(filepath.ListSeparator)+os.Getenv("PATH"))})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Status
	if st.State != rundir.StateFailed || codes(st) != string(reason.ImageMismatch) {
		t.Fatalf("state %s, reasons %v: want image-mismatch alone", st.State, st.Reasons)
	}
	if d := st.Reasons[0].Detail; !strings.Contains(d, pinned) || !strings.Contains(d, other) {
		t.Errorf("%q does not name both digests", d)
	}
	if _, err := os.Stat(filepath.Join(st.Dir, "ctx-0.log")); err == nil {
		t.Error("a rank of the other image was started")
	}
}

// TestContainerRolesNeedAPinAndLocalRanks: a role's image pinned to a
// digest, and ranks that run containers (local ones in docker, srun's in
// Slurm's: arms/ranks/srun); the Kubernetes driver's are refused.
func TestContainerRolesNeedAPinAndLocalRanks(t *testing.T) {
	prompts, _ := filepath.Abs("../../testdata/prompts-256.jsonl")
	s := loadScenario(t, fmt.Sprintf(containerScenario, inImage("sim:1"), prompts, ""))
	if _, err := Run(context.Background(), s, "async", Options{Out: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "is not pinned to a digest") {
		t.Errorf("an unpinned image: %v", err)
	}
	s.Roles[0].Container.Digest = "sha256:" + strings.Repeat("a", 64)
	if _, err := Run(context.Background(), s, "async", Options{Out: t.TempDir(), Ranks: RanksKubernetes}); err == nil || !strings.Contains(err.Error(), "every rank is a pod of the run's image already") {
		t.Errorf("container ranks under kubernetes: %v", err)
	}
}

// TestInheritedNamesTheHostRanksBase: a role in a container started last
// (the frontend) inherits none of the host's environment, and the status
// still names what the host ranks inherited.
func TestInheritedNamesTheHostRanksBase(t *testing.T) {
	prompts, _ := filepath.Abs("../../testdata/prompts-256.jsonl")
	s := loadScenario(t, fmt.Sprintf(containerScenario, "", prompts, inImage(simImage(t, false))))
	if err := container.Pin(context.Background(), container.Docker{}, s, nil); err != nil {
		t.Fatal(err)
	}
	st := runArm(t, context.Background(), s, "async", true)
	noContainerOf(t, st)
	if st.State != rundir.StateSucceeded || !slices.Contains(st.Inherited, "PATH") {
		t.Fatalf("%s %v: inherited %v, want the host ranks' PATH", st.State, st.Reasons, st.Inherited)
	}
}
