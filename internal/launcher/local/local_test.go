package local

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/launcher"
	"github.com/abbench/abbench/internal/launcher/launchertest"
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

// A leader that exits with a code of its own leaves the outcome no detail
// (its exit code says it; a summary shows a detail only where there is
// one, whatever words Go's exec would have used), and one a signal ended
// names the signal. Before, the detail was exec's message, "exit status
// 4", which the summary hid by matching its words.
func TestAPlainExitHasNoDetail(t *testing.T) {
	l := &Launcher{Grace: 200 * time.Millisecond}
	for _, c := range []struct{ script, detail string }{
		{"exit 4", ""},
		{"kill -KILL $$", "signal: killed"},
	} {
		r, err := l.Start(context.Background(), launcher.Spec{ID: "r", Dir: filepath.Join(t.TempDir(), "r"), Command: []string{"/bin/sh", "-c", c.script}})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res, err := r.Wait(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if res.State != launcher.Failed || res.Detail != c.detail {
			t.Errorf("%s: state %s, detail %q; want failed, %q", c.script, res.State, res.Detail, c.detail)
		}
	}
}
