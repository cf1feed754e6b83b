package container_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/container/containertest"

	"github.com/abbench/abbench/internal/container"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

func TestCreateArgs(t *testing.T) {
	s := container.Spec{Name: "abbench-t-ctx-0", Image: "sha256:" + strings.Repeat("a", 64), Labels: map[string]string{container.LabelToken: "t", container.LabelRole: "ctx"},
		User: "1000:1000", Workdir: "/run/x", Mounts: []container.Mount{{Source: "/a,b", Target: "/a"}, {Source: "/c", Target: "/c", ReadOnly: true}},
		Env: []string{"ABBENCH_TOKEN=t"}, Entrypoint: container.WrapperPath, Args: []string{"--", "--launch", "/d", "ctx", "0"}}
	got := strings.Join(s.CreateArgs(), " ")
	for _, want := range []string{
		"--pull never", "--network host", "--init", "--label abbench.role=ctx --label abbench.token=t", "--user 1000:1000",
		`--mount type=bind,"source=/a,b",target=/a`, "--mount type=bind,source=/c,target=/c,readonly", "--env ABBENCH_TOKEN=t",
		"--entrypoint " + container.WrapperPath,
		// The image last of the options, after --: no argument can pass for an option.
		"-- sha256:" + strings.Repeat("a", 64) + " -- --launch /d ctx 0",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("docker %s\nlacks %q", got, want)
		}
	}
}

func TestIsDigest(t *testing.T) {
	for id, want := range map[string]bool{
		"sha256:" + strings.Repeat("0f", 32): true,
		"sha256:" + strings.Repeat("0F", 32): false,
		"sha256:" + strings.Repeat("0", 63):  false,
		strings.Repeat("0", 64):              false,
		"srv:1":                              false,
	} {
		if container.IsDigest(id) != want {
			t.Errorf("container.IsDigest(%q) = %v", id, !want)
		}
	}
}

// testImage builds an image FROM scratch of the static rank wrapper, its
// entrypoint /x, and returns its tag and ID.
func testImage(t *testing.T) (string, string) {
	t.Helper()
	return containertest.StaticImage(t, "container", "FROM scratch\nCOPY abbench-rank /x\nENV MODE=image\nENTRYPOINT [\"/x\", \"--\"]\n", "../../cmd/abbench-rank")
}

func TestPinResolvesTheImageHere(t *testing.T) {
	tag, id := testImage(t)
	d := container.Docker{}
	img, err := d.Inspect(context.Background(), tag)
	if err != nil || img.ID != id || !slices.Equal(img.Entrypoint, []string{"/x", "--"}) {
		t.Fatalf("inspect %s: %+v, %v: want %s and its entrypoint", tag, img, err, id)
	}
	s := &scenarios.Scenario{Roles: []scenarios.Role{{Name: "srv", Container: &scenarios.Container{Image: tag, Runtime: scenarios.RuntimeDocker}}, {Name: "cli"}}}
	if err := container.Pin(context.Background(), d, s, nil); err != nil || s.Roles[0].Container.Digest != id {
		t.Fatalf("pin: %v, digest %q: want %s", err, s.Roles[0].Container.Digest, id)
	}
	if _, err := d.Inspect(context.Background(), tag+"-none"); !errors.Is(err, container.ErrNoImage) {
		t.Errorf("an image the host lacks: %v, want container.ErrNoImage", err)
	}
}

// TestPinOfAnImageGoneNamesBothDigests is a plan's pin whose image is no
// longer here while its name names another: two images under one name,
// refused naming both.
func TestPinOfAnImageGoneNamesBothDigests(t *testing.T) {
	tag, id := testImage(t)
	gone := "sha256:" + strings.Repeat("e", 64)
	s := &scenarios.Scenario{Roles: []scenarios.Role{{Name: "srv", Container: &scenarios.Container{Image: tag, Runtime: scenarios.RuntimeDocker}}}}
	err := container.Pin(context.Background(), container.Docker{}, s, []rundir.ContainerImage{{Role: "srv", Runtime: scenarios.RuntimeDocker, Image: tag, Digest: gone}})
	if err == nil || !strings.Contains(err.Error(), gone) || !strings.Contains(err.Error(), id) || !strings.Contains(err.Error(), "two images under one name") {
		t.Fatalf("got %v, want a refusal naming %s and %s", err, gone, id)
	}
	if s.Roles[0].Container.Digest != "" {
		t.Error("a refused pin pinned the role")
	}
	err = container.Pin(context.Background(), container.Docker{}, s, []rundir.ContainerImage{{Role: "srv", Image: "other:1", Digest: id}})
	if err == nil || !strings.Contains(err.Error(), `the scenario names image "`+tag) {
		t.Errorf("a pin of another image name: %v", err)
	}
}

// TestRemoveRunRemovesEveryContainerOfTheRun creates containers of two
// runs and removes one run's: the other's stays, nothing of the first.
func TestRemoveRunRemovesEveryContainerOfTheRun(t *testing.T) {
	_, id := testImage(t)
	d := container.Docker{}
	ctx := context.Background()
	mine, other := randomToken(), randomToken()
	for _, c := range []struct{ token, name string }{{mine, mine + "-0"}, {mine, mine + "-1"}, {other, other + "-0"}} {
		spec := container.Spec{Name: "abbench-test-" + c.name, Image: id, Labels: map[string]string{container.LabelToken: c.token}}
		if err := d.Create(ctx, spec); err != nil {
			t.Fatal(err)
		}
		if got, err := d.ImageOf(ctx, spec.Name); err != nil || got != id {
			t.Fatalf("container %s is of image %q (%v), want %s", spec.Name, got, err, id)
		}
	}
	t.Cleanup(func() { _, _ = d.RemoveRun(ctx, other) })
	if n, err := d.RemoveRun(ctx, mine); err != nil || n != 2 {
		t.Fatalf("removed %d (%v), want both of the run", n, err)
	}
	if left, err := d.OfRun(ctx, mine); err != nil || len(left) != 0 {
		t.Errorf("left of the run: %v (%v)", left, err)
	}
	if left, _ := d.OfRun(ctx, other); len(left) != 1 {
		t.Errorf("the other run's container: %v, want it kept", left)
	}
}

// randomToken is a run's token no other test process has.
func randomToken() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
