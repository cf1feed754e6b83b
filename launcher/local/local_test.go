package local

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/abbench/abbench/launcher"
	"github.com/abbench/abbench/launcher/launchertest"
)

func TestLocalBackend(t *testing.T) {
	launchertest.Run(t, launchertest.Backend{
		Launcher: &Launcher{Grace: 200 * time.Millisecond},
		Alive:    Alive,
	}, t.TempDir())
}

// A run started again that cannot start leaves the directory of its
// earlier attempts as it was; a new one that cannot start leaves none.
func TestFailedStartKeepsTheEarlierAttempts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "1-a")
	earlier := filepath.Join(dir, "TOKEN", "status.json")
	if err := os.MkdirAll(filepath.Dir(earlier), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(earlier, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := &Launcher{Grace: 200 * time.Millisecond}
	missing := []string{filepath.Join(t.TempDir(), "no-such-controller")}
	if _, err := l.Start(context.Background(), launcher.Spec{ID: "1-a", Dir: dir, Again: true, Command: missing}); err == nil {
		t.Fatal("a command that does not exist was started")
	}
	if _, err := os.Stat(earlier); err != nil {
		t.Fatalf("a failed start removed the earlier attempt: %v", err)
	}
	fresh := filepath.Join(t.TempDir(), "2-b")
	if _, err := l.Start(context.Background(), launcher.Spec{ID: "2-b", Dir: fresh, Command: missing}); err == nil {
		t.Fatal("a command that does not exist was started")
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Fatal("a new run that never started left its directory")
	}
}
