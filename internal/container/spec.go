package container

import (
	"maps"
	"slices"
	"strings"
)

// WrapperPath is where the rank wrapper (abbench-rank, from the host,
// read-only) is mounted in every rank's container: it is the container's
// entrypoint, and execs the image's entrypoint and the rank's command.
const WrapperPath = "/.abbench/abbench-rank"

// Mount is a bind mount of a host path into the container.
type Mount struct {
	Source, Target string
	ReadOnly       bool
}

// Spec is one rank's container.
type Spec struct {
	Name   string
	Image  string // a content digest (sha256:...): what runs is what was pinned
	Labels map[string]string
	// User is uid:gid: the ranks run as the controller's user, as on the
	// host, and what they write into the run directory is its.
	User    string
	Workdir string
	Mounts  []Mount
	// Env is given to the container itself (its init and the wrapper);
	// the rank's own environment reaches it in its launch file.
	Env []string
	// Entrypoint and Args replace the image's: the wrapper, and its
	// arguments.
	Entrypoint string
	Args       []string
}

// CreateArgs is docker create's argument list for spec: the host's
// network (ranks talk over its loopback, as on the host), an init as
// process 1 (so a rank gets its signals as on the host, and its children
// are reaped), and never a pull.
func (s Spec) CreateArgs() []string {
	args := []string{"create", "--name", s.Name, "--pull", "never", "--network", "host", "--init", "--log-driver", "none"}
	for _, k := range slices.Sorted(maps.Keys(s.Labels)) {
		args = append(args, "--label", k+"="+s.Labels[k])
	}
	if s.User != "" {
		args = append(args, "--user", s.User)
	}
	if s.Workdir != "" {
		args = append(args, "--workdir", s.Workdir)
	}
	for _, m := range s.Mounts {
		v := "type=bind," + mountField("source", m.Source) + "," + mountField("target", m.Target)
		if m.ReadOnly {
			v += ",readonly"
		}
		args = append(args, "--mount", v)
	}
	for _, kv := range s.Env {
		args = append(args, "--env", kv)
	}
	if s.Entrypoint != "" {
		args = append(args, "--entrypoint", s.Entrypoint)
	}
	return append(append(args, "--", s.Image), s.Args...)
}

// mountField is key=value as a field of --mount, which docker reads as
// CSV: quoted where the value holds a comma or a quote.
func mountField(key, value string) string {
	if !strings.ContainsAny(value, ",\"") {
		return key + "=" + value
	}
	return `"` + key + "=" + strings.ReplaceAll(value, `"`, `""`) + `"`
}
