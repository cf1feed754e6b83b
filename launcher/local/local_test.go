package local

import (
	"testing"
	"time"

	"github.com/abbench/abbench/launcher/launchertest"
)

func TestLocalBackend(t *testing.T) {
	launchertest.Run(t, launchertest.Backend{
		Launcher: &Launcher{Grace: 200 * time.Millisecond},
		Alive:    Alive,
	}, t.TempDir())
}
