// Package containertest builds and removes the images tests run containers
// of, and says whether a docker daemon answers here.
package containertest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/container"
	"github.com/abbench/abbench/internal/testbin"
)

// DockerAnswers says whether a docker daemon answers here (asked once per
// test process); the error says why not.
var DockerAnswers = sync.OnceValue(func() error {
	return container.Docker{}.Available(context.Background())
})

// RequireDocker skips the test when no docker daemon answers, or fails it
// in CI (CI set): .ci/run starts one.
func RequireDocker(t testing.TB) {
	t.Helper()
	if err := DockerAnswers(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no docker daemon answers in CI (.ci/run starts one): %v", err)
		}
		t.Skipf("no docker daemon answers (start one: sudo scripts/docker-daemon.sh up): %v", err)
	}
}

// StaticBuild builds each package directory of pkgs with CGO_ENABLED=0
// into dir: binaries that an image FROM scratch can run. A package is
// built from its own module, wherever that is.
func StaticBuild(dir string, pkgs ...string) error {
	return testbin.BuildInto(dir, staticEnv, staticFlags, pkgs...)
}

// StaticBinaries is StaticBuild into a directory kept between test runs
// (testbin.Build), returned: for a test that only runs the binaries.
func StaticBinaries(pkgs ...string) (string, error) {
	return testbin.Build(staticEnv, staticFlags, pkgs...)
}

// staticEnv and staticFlags make a binary that needs nothing of its image.
var (
	staticEnv   = []string{"CGO_ENABLED=0"}
	staticFlags = []string{"-trimpath"}
)

// ImageName is a tag no other test process uses: images are the daemon's,
// shared by every test that runs at once.
func ImageName(what string) string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return "abbench-test-" + what + ":" + hex.EncodeToString(b[:])
}

// BuildImage builds the docker build context dir as tag, from nothing a
// registry serves (its Dockerfile starts FROM scratch), and returns the
// image's ID. It waits at most two minutes.
func BuildImage(tag, dir string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "docker", "build", "--quiet", "--tag", tag, dir)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("docker build %s: %v: %s", dir, err, stderr.String())
	}
	fields := strings.Fields(string(out))
	if len(fields) == 0 || !container.IsDigest(fields[len(fields)-1]) {
		return "", fmt.Errorf("docker build %s printed no image ID: %q", dir, out)
	}
	return fields[len(fields)-1], nil
}

// RemoveImages removes images by tag or ID, with whatever containers of
// them are left: a test leaves nothing in the daemon.
func RemoveImages(refs ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "docker", append([]string{"rmi", "--force"}, refs...)...).CombinedOutput()
	if err != nil && !bytes.Contains(out, []byte("No such image")) {
		return fmt.Errorf("docker rmi %s: %v: %s", strings.Join(refs, " "), err, out)
	}
	return nil
}

// Image builds dir as an image for t (tagged ImageName(what)) and removes
// it when t ends; it returns the tag and the image's ID.
func Image(t testing.TB, what, dir string) (tag, id string) {
	t.Helper()
	tag = ImageName(what)
	id, err := BuildImage(tag, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := RemoveImages(tag, id); err != nil {
			t.Error(err)
		}
	})
	return tag, id
}

// StaticImage builds, for t, an image of dockerfile (FROM scratch) whose
// build context holds each package directory of pkgs built statically
// (StaticBuild), and removes it when t ends; it returns the tag and ID.
// Without a docker daemon t is skipped, or fails in CI; under -short it
// is skipped.
func StaticImage(t testing.TB, what, dockerfile string, pkgs ...string) (tag, id string) {
	t.Helper()
	// An image build and the containers run from it are seconds of CPU
	// (docker's, the builds', the ranks'): the quick loop leaves them to
	// the full suite, as it leaves every arm run.
	if testing.Short() {
		t.Skip("builds a docker image and runs containers of it: go test without -short runs it")
	}
	RequireDocker(t)
	dir := t.TempDir()
	if err := StaticBuild(dir, pkgs...); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(dockerfile), 0o644); err != nil {
		t.Fatal(err)
	}
	return Image(t, what, dir)
}
