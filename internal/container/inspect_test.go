package container

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// fakeDocker is a client whose image inspect fails saying said, and whose
// daemon answers (gives its version) when up.
func fakeDocker(t *testing.T, said string, up bool) Docker {
	t.Helper()
	version := "echo 'Cannot connect to the Docker daemon' >&2; exit 1"
	if up {
		version = "echo 28.0.1"
	}
	script := "#!/bin/sh\ncase \"$1\" in\nversion) " + version + " ;;\n*) echo '[]'; echo '" + said + "' >&2; exit 1 ;;\nesac\n"
	path := filepath.Join(t.TempDir(), "docker")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return Docker{Program: path}
}

// An image the host lacks is the daemon's answer (it answers, and has
// nothing by that name), never the client's words: a reworded "not
// found" is ErrNoImage, and a daemon that does not answer is an error of
// its own even when the words say "No such image".
func TestNoImageIsTheDaemonsAnswerNotTheWords(t *testing.T) {
	ctx := context.Background()
	if _, err := fakeDocker(t, "Error response from daemon: image srv:1 is unknown here", true).Inspect(ctx, "srv:1"); !errors.Is(err, ErrNoImage) {
		t.Errorf("a reworded not-found: %v, want ErrNoImage", err)
	}
	if _, err := fakeDocker(t, "Error: No such image: srv:1 (Cannot connect to the Docker daemon)", false).Inspect(ctx, "srv:1"); err == nil || errors.Is(err, ErrNoImage) {
		t.Errorf("a daemon that does not answer: %v, want its error, not ErrNoImage", err)
	}
}
