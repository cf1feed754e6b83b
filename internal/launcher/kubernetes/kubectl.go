package kubernetes

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// callTimeout bounds every kubectl call: an API server that stops
// answering fails the call, it never hangs the run.
const callTimeout = 30 * time.Second

// kubectl runs the launcher's kubectl with args and returns its standard
// output; a failure carries kubectl's own message.
func (l *Launcher) kubectl(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	name := l.Kubectl
	if name == "" {
		name = "kubectl"
	}
	cmd := exec.CommandContext(ctx, name, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), &kubectlError{call: name + " " + strings.Join(args, " "), err: err, Stderr: strings.TrimSpace(stderr.String())}
	}
	return stdout.Bytes(), nil
}

// kubectlError is a kubectl call that failed: the call, how, and what
// kubectl said (its standard error), which the pod facts keep alone.
type kubectlError struct {
	call   string
	err    error
	Stderr string
}

func (e *kubectlError) Error() string { return fmt.Sprintf("%s: %v: %s", e.call, e.err, e.Stderr) }
func (e *kubectlError) Unwrap() error { return e.err }

// get runs kubectl get args with --ignore-not-found, under which kubectl
// answers an object that does not exist with nothing and status 0: found
// is told from that answer, never from the words of an error, so a
// failure whose message merely names NotFound (a webhook's, a reworded
// one) is an error, and a reworded not-found is still not found.
func (l *Launcher) get(ctx context.Context, args ...string) (out []byte, found bool, err error) {
	out, err = l.kubectl(ctx, nil, append(append([]string{"get"}, args...), "--ignore-not-found")...)
	if err != nil {
		return out, false, err
	}
	return out, len(bytes.TrimSpace(out)) > 0, nil
}
