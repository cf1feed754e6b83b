package container

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// exportTimeout bounds writing out one image's whole filesystem.
const exportTimeout = 10 * time.Minute

// LabelExport marks the container an export creates, never started, and
// removed once its filesystem is read.
const LabelExport = "abbench.export"

// Export writes the filesystem of the image digest (a tar stream, as
// docker export gives it) to w: from a container created from that
// digest and no other, never started, removed at the end.
func (d Docker) Export(ctx context.Context, digest string, w io.Writer) error {
	if !IsDigest(digest) {
		return fmt.Errorf("export %q: not an image digest (sha256: and 64 hex digits)", digest)
	}
	// An image FROM scratch may have no command: the entrypoint given is
	// never run, it only lets docker create the container.
	out, err := d.run(ctx, callTimeout, "create", "--pull", "never", "--label", LabelExport+"=1", "--entrypoint", WrapperPath, "--", digest)
	if err != nil {
		return err
	}
	id := strings.TrimSpace(string(out))
	defer func() {
		_, _ = d.run(context.WithoutCancel(ctx), removeTimeout, "rm", "--force", "--", id) // a container left is listed by its label
	}()
	ctx, cancel := context.WithTimeout(ctx, exportTimeout)
	defer cancel()
	cmd := d.Command("export", "--", id)
	cmd.Stdout = w
	var said strings.Builder
	cmd.Stderr = Capped(&said, 4096)
	if err := cmd.Start(); err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { _ = cmd.Process.Kill() }) // the wait below then returns
	defer stop()
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return &CallError{Args: cmd.Args[1:], Said: fmt.Sprintf("not done within %s", exportTimeout), Err: err}
		}
		return &CallError{Args: cmd.Args[1:], Said: strings.TrimSpace(said.String()), Err: err}
	}
	return nil
}

// Capped is w keeping the first n bytes written to it, dropping the rest
// (what a program says on its error output, kept for its error).
func Capped(w io.Writer, n int) io.Writer { return &capped{w: w, left: n} }

// capped keeps the first left bytes written to it and drops the rest.
type capped struct {
	w    io.Writer
	left int
}

func (c *capped) Write(p []byte) (int, error) {
	n := len(p)
	if c.left > 0 {
		k := min(n, c.left)
		c.left -= k
		if _, err := c.w.Write(p[:k]); err != nil {
			return 0, err
		}
	}
	return n, nil
}
