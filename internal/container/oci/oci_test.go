package oci

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/container"
	"github.com/abbench/abbench/internal/container/containertest"
)

// TestBundleRunsTheImageWithItsEnv: an image of this host's docker is
// written out once by its digest, and a bundle over it runs under runc
// (the runtime the Slurm dev cluster's oci.conf names) with the image's
// ENV, read only, as the given user, in the run directory mounted at its
// own path, on the host's network. Without runc it skips (fails in CI).
func TestBundleRunsTheImageWithItsEnv(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an image and runs a container: go test without -short runs it")
	}
	runc, err := exec.LookPath("runc")
	if err != nil || os.Getuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI runs bundles under runc as root: runc %v, uid %d", err, os.Getuid())
		}
		t.Skip("runs a bundle with runc, as root")
	}
	containertest.RequireDocker(t)
	ctx := context.Background()
	build := t.TempDir()
	bb, err := exec.LookPath("busybox")
	if err != nil {
		t.Skip("no busybox to put in the image")
	}
	data, err := os.ReadFile(bb)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(build, "busybox"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(build, "Dockerfile"), []byte("FROM scratch\nCOPY busybox /bin/busybox\nENV PATH=/bin MODE=image OTHER=kept\nENTRYPOINT [\"/bin/busybox\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, id := containertest.Image(t, "oci", build)
	img, err := container.Docker{}.Inspect(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	images := filepath.Join(out, ImagesDir)
	made, err := Make(ctx, container.Docker{}, images, img, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if made.Digest != id || strings.Join(made.Entrypoint, " ") != "/bin/busybox" || !strings.Contains(strings.Join(made.Env, " "), "MODE=image") {
		t.Fatalf("image written out as %+v, want digest %s, its entrypoint and ENV", made, id)
	}
	// Made once: a second Make reads what the first wrote.
	stamp := filepath.Join(made.Rootfs, "tmp", "stamp")
	if err := os.WriteFile(stamp, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Make(ctx, container.Docker{}, images, img, out, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stamp); err != nil {
		t.Fatalf("a second Make wrote the image out again: %v", err)
	}
	run := filepath.Join(out, "runs", "1-a", "tok")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	b := Bundle{Image: made, UID: 0, GID: 0, Mounts: []container.Mount{{Source: out, Target: out}},
		Args: []string{"/bin/busybox", "sh", "-c", `cd ` + run + `; echo "mode=$MODE other=$OTHER pwd=$(pwd)"; touch /x 2>/dev/null && echo rootfs-writable; echo ok > written; wc -l < /proc/net/dev`}}
	if err := b.Write(); err != nil {
		t.Fatal(err)
	}
	tctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	name := "abbench-oci-test-" + filepath.Base(t.TempDir())
	got, err := exec.CommandContext(tctx, runc, "run", "--bundle", made.Bundle(), name).CombinedOutput()
	_ = exec.Command(runc, "delete", "--force", name).Run() // gone once it ended
	if err != nil {
		t.Fatalf("runc run: %v: %s", err, got)
	}
	hostNet, err := os.ReadFile("/proc/net/dev")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("mode=image other=kept pwd=%s\n%d\n", run, strings.Count(string(hostNet), "\n"))
	if string(got) != want {
		t.Errorf("the container said %q, want %q (the image's ENV, the run directory, a read-only root, the host's loopback)", got, want)
	}
	if w, err := os.ReadFile(filepath.Join(run, "written")); err != nil || string(w) != "ok\n" {
		t.Errorf("the run directory is not the host's inside: %q, %v", w, err)
	}
}

// TestSquashfsHoldsTheRootfs: pyxis's image is the root filesystem as a
// squashfs beside it, made once. Without mksquashfs it skips (fails in
// CI, which installs squashfs-tools).
func TestSquashfsHoldsTheRootfs(t *testing.T) {
	if _, err := exec.LookPath("mksquashfs"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI installs squashfs-tools (.ci/run)")
		}
		t.Skip("no mksquashfs (squashfs-tools)")
	}
	dir := t.TempDir()
	img := Image{Digest: "sha256:" + strings.Repeat("0", 64), Rootfs: filepath.Join(dir, "rootfs")}
	if err := os.MkdirAll(filepath.Join(img.Rootfs, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(img.Rootfs, "bin", "server"), []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Squash(context.Background(), img); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("unsquashfs", "-l", img.Squashfs()).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "squashfs-root/bin/server") {
		t.Fatalf("unsquashfs -l: %v: %s", err, out)
	}
	before, _ := os.Stat(img.Squashfs())
	if err := Squash(context.Background(), img); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(img.Squashfs()); !after.ModTime().Equal(before.ModTime()) {
		t.Error("the squashfs was made again")
	}
}
