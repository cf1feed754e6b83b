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
		return stdout.Bytes(), fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// notFound says whether a kubectl error is the API's NotFound.
func notFound(err error) bool {
	return err != nil && strings.Contains(err.Error(), "NotFound")
}
