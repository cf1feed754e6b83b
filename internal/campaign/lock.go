package campaign

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/abbench/abbench/internal/rundir"
)

// BusyError refuses a campaign another abbench run is running: its
// directory's run.lock is held. Holder is what the holder wrote there
// (its pid, host and start), for the message.
type BusyError struct {
	Dir, Holder string
}

func (e *BusyError) Error() string {
	who := "another abbench run"
	if e.Holder != "" {
		who += " (" + e.Holder + ")"
	}
	return fmt.Sprintf("%s: %s is running this campaign (it holds %s): one abbench run runs a campaign at a time", e.Dir, who, rundir.RunLock)
}

// Lock takes the campaign's lock, DIR/run.lock, for as long as this
// process runs the campaign: an exclusive flock, which the kernel
// releases when the process ends however it ends, so a lock is never
// left behind by a killed abbench run (and on a shared filesystem that
// supports locks, NFS among them, it holds across hosts). The file is
// opened without following a link. It is held by no child: every run's
// controller is started without it. release gives it back.
func Lock(dir string) (release func(), err error) {
	path := filepath.Join(dir, rundir.RunLock)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, fmt.Errorf("the campaign's lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		holder, _ := io.ReadAll(io.LimitReader(f, 512))
		_ = f.Close() // read only
		return nil, &BusyError{Dir: dir, Holder: strings.TrimSpace(string(holder))}
	}
	if err != nil {
		_ = f.Close() // nothing written
		return nil, fmt.Errorf("taking the campaign's lock %s: %w", path, err)
	}
	host, _ := os.Hostname()
	// Who holds it is for a person's message only: a lock that says
	// nothing is held all the same.
	if f.Truncate(0) == nil {
		_, _ = f.WriteAt([]byte(fmt.Sprintf("pid %d on %s, since %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))), 0)
	}
	return func() { _ = f.Close() }, nil // closing releases the lock; what it says stays, and says nothing of a lock not held
}
