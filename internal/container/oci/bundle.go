package oci

import (
	"encoding/json"
	"path/filepath"

	"github.com/abbench/abbench/internal/atomicfile"
	"github.com/abbench/abbench/internal/container"
)

// ConfigFile is a bundle's OCI runtime configuration.
const ConfigFile = "config.json"

// Bundle is the container the ranks of an image run in under srun
// --container: the image's directory, its root filesystem and a
// config.json. Slurm (22.05) reads the config.json, takes the bundle's
// rootfs whatever its root.path says, sets the step's command as the
// process's arguments and appends the step's environment to its env, and
// runs it with oci.conf's runtime. No run's own path is in it, so one
// bundle serves every run of the plan: the rank wrapper enters the run's
// directory itself (its launch file names it).
type Bundle struct {
	Image Image
	// UID and GID are the user that runs the campaign: the ranks write
	// into the run directory as its controller does, as on the host.
	UID, GID int
	// Mounts are bound at their targets, after the system's own.
	Mounts []container.Mount
	// Args are what runs when the bundle is run without Slurm (srun
	// replaces them with the step's command).
	Args []string
}

// config is the subset of the OCI runtime specification a bundle sets.
type config struct {
	OCIVersion string  `json:"ociVersion"`
	Process    process `json:"process"`
	Root       struct {
		Path     string `json:"path"`
		Readonly bool   `json:"readonly"`
	} `json:"root"`
	Mounts []mount `json:"mounts"`
	Linux  struct {
		Namespaces    []namespace `json:"namespaces"`
		MaskedPaths   []string    `json:"maskedPaths"`
		ReadonlyPaths []string    `json:"readonlyPaths"`
	} `json:"linux"`
}

type process struct {
	Terminal bool `json:"terminal"`
	User     struct {
		UID int `json:"uid"`
		GID int `json:"gid"`
	} `json:"user"`
	Args []string `json:"args"`
	Env  []string `json:"env"`
	Cwd  string   `json:"cwd"`
}

type mount struct {
	Destination string   `json:"destination"`
	Type        string   `json:"type"`
	Source      string   `json:"source"`
	Options     []string `json:"options,omitempty"`
}

type namespace struct {
	Type string `json:"type"`
}

// Write writes b's config.json into its image's directory.
//
// The root filesystem is the image's, read only: every run of the image
// shares it. Only a mount namespace is new: the ranks share the host's
// network (they talk over its loopback, on ports abbench allocated there,
// as a rank in docker does with --network host) and its process table (a
// signal reaches the rank as on the host, which no process 1 of a
// namespace of its own would pass on).
func (b Bundle) Write() error {
	var c config
	c.OCIVersion = "1.0.2"
	c.Process.User.UID, c.Process.User.GID = b.UID, b.GID
	c.Process.Args = b.Args
	if len(c.Process.Args) == 0 {
		c.Process.Args = []string{container.WrapperPath}
	}
	// The image's ENV is where a rank's environment starts, as docker
	// gives it; the arm's values come after it, from the launch file the
	// rank wrapper reads inside.
	c.Process.Env = append([]string{}, b.Image.Env...)
	c.Process.Cwd = b.Image.Shared
	c.Root.Path, c.Root.Readonly = b.Image.Rootfs, true
	c.Mounts = []mount{
		{Destination: "/proc", Type: "proc", Source: "proc"},
		{Destination: "/dev", Type: "tmpfs", Source: "tmpfs", Options: []string{"nosuid", "strictatime", "mode=755", "size=65536k"}},
		{Destination: "/dev/pts", Type: "devpts", Source: "devpts", Options: []string{"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"}},
		{Destination: "/dev/shm", Type: "tmpfs", Source: "shm", Options: []string{"nosuid", "noexec", "nodev", "mode=1777", "size=65536k"}},
		{Destination: "/sys", Type: "sysfs", Source: "sysfs", Options: []string{"nosuid", "noexec", "nodev", "ro"}},
	}
	for _, m := range b.Mounts {
		opts := []string{"rbind"}
		if m.ReadOnly {
			opts = append(opts, "ro")
		}
		c.Mounts = append(c.Mounts, mount{Destination: m.Target, Type: "bind", Source: m.Source, Options: opts})
	}
	c.Linux.Namespaces = []namespace{{Type: "mount"}}
	c.Linux.MaskedPaths = []string{"/proc/kcore", "/proc/keys", "/proc/timer_list", "/sys/firmware"}
	c.Linux.ReadonlyPaths = []string{"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Publish(b.Image.Config(), append(data, '\n'), 0o644)
}

// Config is the image's bundle's config.json (Bundle.Write writes it).
func (img Image) Config() string { return filepath.Join(img.Bundle(), ConfigFile) }

// Bundle is the image's bundle: the directory of its root filesystem.
func (img Image) Bundle() string { return filepath.Dir(img.Rootfs) }

// Mounts are what every container of an image mounts: /tmp and shared
// (the campaign's directory) at their own paths (a rank's scratch
// directory is under /tmp, as on the host, shared by the node's ranks;
// /tmp first, so that a campaign directory under it is not hidden), the
// static rank wrapper read-only at container.WrapperPath, and the roles'
// own mounts.
func Mounts(shared, wrapper string, own []container.Mount) []container.Mount {
	ms := []container.Mount{{Source: "/tmp", Target: "/tmp"}, {Source: shared, Target: shared},
		{Source: wrapper, Target: container.WrapperPath, ReadOnly: true}}
	return append(ms, own...)
}
