package container

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// The labels every container of a run carries: LabelToken finds them all
// (teardown, the guard of a killed controller, the next abbench's sweep).
const (
	LabelToken = "abbench.token"
	LabelRole  = "abbench.role"
	LabelRank  = "abbench.rank"
)

// callTimeout bounds one call of the client that does not wait for a
// container to end (inspect, create, kill, list); removing a run's
// containers gets removeTimeout, as the daemon stops each one.
const (
	callTimeout   = 30 * time.Second
	removeTimeout = 60 * time.Second
)

// Docker is the docker client abbench runs.
type Docker struct {
	// Program is the client (default "docker", found on PATH).
	Program string
	// Env is the client's environment; nil inherits this process's.
	Env []string
}

func (d Docker) program() string {
	if d.Program == "" {
		return "docker"
	}
	return d.Program
}

// Command is the client run with args; its environment is d.Env.
func (d Docker) Command(args ...string) *exec.Cmd {
	cmd := exec.Command(d.program(), args...)
	cmd.Env = d.Env
	return cmd
}

// run runs the client with args within timeout and returns its output;
// the error quotes what it said on stderr.
func (d Docker) run(ctx context.Context, timeout time.Duration, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.program(), args...)
	cmd.Env = d.Env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		said := strings.TrimSpace(stderr.String())
		if ctx.Err() != nil {
			said = fmt.Sprintf("no answer within %s", timeout)
		}
		return out, &CallError{Args: args, Said: said, Err: err}
	}
	return out, nil
}

// CallError is a call of the client that failed.
type CallError struct {
	Args []string
	Said string // its stderr, trimmed
	Err  error
}

func (e *CallError) Error() string {
	return fmt.Sprintf("docker %s: %v: %s", strings.Join(e.Args, " "), e.Err, e.Said)
}

func (e *CallError) Unwrap() error { return e.Err }

// Image is an image as the runtime has it.
type Image struct {
	// ID is its content digest: sha256 of its configuration, which names
	// every layer by content, its environment and entrypoint included.
	ID         string
	Entrypoint []string
	// Env is the image's own ENV, as NAME=VALUE: what a rank's
	// environment starts from where no runtime applies it (an OCI
	// bundle's config.json).
	Env []string
}

// ErrNoImage says the host has no image of that name or digest.
var ErrNoImage = errors.New("no such image here")

// Inspect resolves ref (a name or an ID) to the image the host has.
func (d Docker) Inspect(ctx context.Context, ref string) (Image, error) {
	out, err := d.run(ctx, callTimeout, "image", "inspect", "--", ref)
	var ce *CallError
	if errors.As(err, &ce) && d.answers(ctx) {
		// The daemon answers, yet has nothing to inspect by ref: told by
		// asking it, never by the words of the client's error, which
		// differ between clients and versions.
		return Image{}, fmt.Errorf("image %s: %w (%s)", ref, ErrNoImage, ce.Said)
	}
	if err != nil {
		return Image{}, err
	}
	var found []struct {
		ID     string `json:"Id"`
		Config struct {
			Entrypoint []string `json:"Entrypoint"`
			Env        []string `json:"Env"`
		} `json:"Config"`
	}
	if err := json.Unmarshal(out, &found); err != nil || len(found) != 1 || !IsDigest(found[0].ID) {
		return Image{}, fmt.Errorf("docker image inspect %s: not one image with a sha256 ID (%v): %.200s", ref, err, out)
	}
	return Image{ID: found[0].ID, Entrypoint: found[0].Config.Entrypoint, Env: found[0].Config.Env}, nil
}

// answers says whether the daemon answers the client: it gives its
// version.
func (d Docker) answers(ctx context.Context) bool {
	out, err := d.run(ctx, callTimeout, "version", "--format", "{{.Server.Version}}")
	return err == nil && len(bytes.TrimSpace(out)) > 0
}

// IsDigest says whether id is a full content digest, sha256: and 64
// lower-case hex digits.
func IsDigest(id string) bool {
	hex, ok := strings.CutPrefix(id, "sha256:")
	return ok && len(hex) == 64 && strings.Trim(hex, "0123456789abcdef") == ""
}

// Create creates the container spec describes, from its image and no
// other: never pulled.
func (d Docker) Create(ctx context.Context, spec Spec) error {
	_, err := d.run(ctx, callTimeout, spec.CreateArgs()...)
	return err
}

// ImageOf is the digest of the image the container name was created from.
func (d Docker) ImageOf(ctx context.Context, name string) (string, error) {
	out, err := d.run(ctx, callTimeout, "container", "inspect", "--format", "{{.Image}}", "--", name)
	return strings.TrimSpace(string(out)), err
}

// Start is the client that starts the container name and stays attached
// to it: it exits when the container does, with its exit status.
func (d Docker) Start(name string) *exec.Cmd {
	return d.Command("start", "--attach", "--", name)
}

// Signal sends sig (TERM, KILL) to each container of names that runs.
func (d Docker) Signal(ctx context.Context, sig string, names ...string) error {
	if len(names) == 0 {
		return nil
	}
	_, err := d.run(ctx, callTimeout, append([]string{"kill", "--signal", sig, "--"}, names...)...)
	return err
}

// OfRun lists the containers, running or not, that carry token's label.
func (d Docker) OfRun(ctx context.Context, token string) ([]string, error) {
	out, err := d.run(ctx, callTimeout, "ps", "--all", "--no-trunc", "--filter", "label="+LabelToken+"="+token, "--format", "{{.Names}}")
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// RemoveRun stops (SIGKILL) and removes every container of token's run,
// with its anonymous volumes, and returns how many it removed.
func (d Docker) RemoveRun(ctx context.Context, token string) (int, error) {
	names, err := d.OfRun(ctx, token)
	if err != nil || len(names) == 0 {
		return 0, err
	}
	_, err = d.run(ctx, removeTimeout, append([]string{"rm", "--force", "--volumes", "--"}, names...)...)
	return len(names), err
}

// Available says whether the runtime answers: its client is installed
// and its daemon runs.
func (d Docker) Available(ctx context.Context) error {
	_, err := d.run(ctx, 10*time.Second, "info", "--format", "{{.ServerVersion}}")
	return err
}
