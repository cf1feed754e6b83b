// Package oci makes what Slurm runs a rank's container from (srun
// --container with its oci.conf's runtime, or pyxis/enroot): each pinned
// image's root filesystem, written out once per plan from this host's
// docker into a directory named by the image's digest, on the filesystem
// the nodes share, beside the image's own ENV and entrypoint; and each
// run's bundle (config.json) over it.
package oci

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/abbench/abbench/internal/atomicfile"
	"github.com/abbench/abbench/internal/container"
)

// ImagesDir is the directory of a campaign's images, in its output
// directory: the nodes read them where they read the runs.
const ImagesDir = "images"

// exportTimeout bounds writing out one image (its filesystem, its squashfs).
const exportTimeout = 10 * time.Minute

const (
	imageFile = "image.json"
	rootfsDir = "rootfs"
)

// Image is a pinned image as its bundles need it; image.json records it
// beside the image's root filesystem.
type Image struct {
	Digest     string   `json:"digest"`
	Entrypoint []string `json:"entrypoint"`
	// Env is the image's own ENV, which a rank's environment starts from.
	Env []string `json:"env"`
	// Shared is the directory every bundle of the image mounts at its own
	// path (the campaign's: runs, logs, the coordination files), and
	// Points the targets of the roles' own mounts: each made in the root
	// filesystem when it was written out.
	Shared string   `json:"shared"`
	Points []string `json:"points,omitempty"`
	// Rootfs is the image's root filesystem (not recorded: it is beside
	// image.json).
	Rootfs string `json:"-"`
}

// Dir is the directory of the image digest in images.
func Dir(images, digest string) string {
	return filepath.Join(images, strings.Replace(digest, ":", "-", 1))
}

// MountPoints are the directories and files every bundle mounts over
// (bundle.go), made in the root filesystem when it is written out: the
// runtime would otherwise make them in it, and the root filesystem is
// shared by every run of the image, read only.
var mountPoints = []string{"/proc", "/dev", "/sys", "/tmp", filepath.Dir(container.WrapperPath)}

// Make writes out the image img of this host's docker into images, unless
// it is there already: its root filesystem, with the mount points of
// every bundle, of shared (the campaign's directory, which every bundle
// mounts at its own path) and of points (the roles' own mounts' targets),
// and image.json. A half-written image is never taken for one: it is
// written beside and renamed into place.
func Make(ctx context.Context, d container.Docker, images string, img container.Image, shared string, points []string) (Image, error) {
	dir := Dir(images, img.ID)
	if got, err := Read(images, img.ID); err == nil {
		return got, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Image{}, err
	}
	if err := os.MkdirAll(images, 0o755); err != nil {
		return Image{}, err
	}
	tmp := dir + ".tmp-" + strconv.Itoa(os.Getpid())
	if err := os.RemoveAll(tmp); err != nil {
		return Image{}, err
	}
	defer func() { _ = os.RemoveAll(tmp) }() // gone once renamed; what a failure left
	if err := export(ctx, d, img.ID, filepath.Join(tmp, rootfsDir)); err != nil {
		return Image{}, fmt.Errorf("writing out image %s for Slurm's containers: %w", img.ID, err)
	}
	for _, p := range append(append(slices.Clone(mountPoints), shared), points...) {
		if err := mkdirIn(filepath.Join(tmp, rootfsDir), p); err != nil {
			return Image{}, fmt.Errorf("image %s: %w", img.ID, err)
		}
	}
	if err := touchIn(filepath.Join(tmp, rootfsDir), container.WrapperPath); err != nil {
		return Image{}, fmt.Errorf("image %s: %w", img.ID, err)
	}
	rec := Image{Digest: img.ID, Entrypoint: img.Entrypoint, Env: img.Env, Shared: shared, Points: points}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return Image{}, err
	}
	if err := atomicfile.Publish(filepath.Join(tmp, imageFile), append(data, '\n'), 0o644); err != nil {
		return Image{}, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another abbench made it meanwhile: that one is as good.
		if got, rerr := Read(images, img.ID); rerr == nil {
			return got, nil
		}
		return Image{}, err
	}
	return Read(images, img.ID)
}

// export unpacks the filesystem of digest into dir with tar.
func export(ctx context.Context, d container.Docker, digest, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tar := exec.CommandContext(ctx, "tar", "-x", "-f", "-", "-C", dir)
	var said strings.Builder
	tar.Stderr = container.Capped(&said, 4096)
	in, err := tar.StdinPipe()
	if err != nil {
		return err
	}
	if err := tar.Start(); err != nil {
		return err
	}
	xerr := d.Export(ctx, digest, in)
	_ = in.Close() // tar reads to its end either way
	if err := tar.Wait(); err != nil {
		return fmt.Errorf("tar -x: %w: %.500s", err, strings.TrimSpace(said.String()))
	}
	return xerr
}

// mkdirIn makes the directory p (absolute) inside root, refusing to
// follow a link the image holds (it could point out of root).
func mkdirIn(root, p string) error {
	cur := root
	for _, part := range strings.Split(strings.Trim(filepath.Clean(p), "/"), "/") {
		if part == "" {
			continue
		}
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(cur, 0o755); err != nil {
				return err
			}
		case err != nil:
			return err
		case !fi.IsDir():
			return fmt.Errorf("%s is mounted over in every container, but the image has %s there, not a directory", p, strings.TrimPrefix(cur, root))
		}
	}
	return nil
}

// touchIn makes the empty file p (absolute) inside root, its directory
// made first.
func touchIn(root, p string) error {
	if err := mkdirIn(root, filepath.Dir(p)); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(root, p), os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return f.Close()
}

// ErrNotMade says a plan's image was never written out for Slurm.
var ErrNotMade = errors.New("not written out for Slurm's containers")

// Read is the image digest as Make wrote it into images.
func Read(images, digest string) (Image, error) {
	dir := Dir(images, digest)
	var img Image
	data, err := os.ReadFile(filepath.Join(dir, imageFile))
	if err != nil {
		return Image{}, err
	}
	if err := json.Unmarshal(data, &img); err != nil {
		return Image{}, fmt.Errorf("%s: %w", filepath.Join(dir, imageFile), err)
	}
	if img.Digest != digest {
		return Image{}, fmt.Errorf("%s records image %s, not %s: remove %s and run again", filepath.Join(dir, imageFile), img.Digest, digest, dir)
	}
	img.Rootfs = filepath.Join(dir, rootfsDir)
	if fi, err := os.Stat(img.Rootfs); err != nil || !fi.IsDir() {
		return Image{}, fmt.Errorf("image %s: no root filesystem at %s: remove %s and run again", digest, img.Rootfs, dir)
	}
	return img, nil
}

// squashfsFile is the image as pyxis takes it, beside its root filesystem.
const squashfsFile = "image.sqsh"

// Squashfs is the image's squashfs, which pyxis's --container-image takes
// (Squash makes it).
func (img Image) Squashfs() string {
	return filepath.Join(img.Bundle(), squashfsFile)
}

// Pyxis says whether this host's srun takes pyxis's options
// (--container-image), asked once of srun --help.
var Pyxis = sync.OnceValue(func() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "srun", "--help").Output()
	return err == nil && strings.Contains(string(out), "--container-image")
})

// Squash makes img's squashfs for pyxis from its root filesystem (with
// mksquashfs, squashfs-tools), unless it is there.
func Squash(ctx context.Context, img Image) error {
	if _, err := os.Stat(img.Squashfs()); err == nil {
		return nil
	}
	tmp := img.Squashfs() + ".tmp-" + strconv.Itoa(os.Getpid())
	ctx, cancel := context.WithTimeout(ctx, exportTimeout)
	defer cancel()
	var said strings.Builder
	sq := exec.CommandContext(ctx, "mksquashfs", img.Rootfs, tmp, "-noappend", "-quiet", "-no-progress")
	w := container.Capped(&said, 4096) // one writer: exec copies both outputs to it from one goroutine
	sq.Stdout, sq.Stderr = w, w
	if err := sq.Run(); err != nil {
		_ = os.Remove(tmp) // half written
		return fmt.Errorf("image %s for pyxis: mksquashfs: %w: %.500s", img.Digest, err, strings.TrimSpace(said.String()))
	}
	return os.Rename(tmp, img.Squashfs())
}
