package arms

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/atomicfile"
	"github.com/abbench/abbench/internal/rundir"
)

// Barrier is a named meeting point in the coordination namespace whose
// participants are named exactly (the controllers that take part, never a
// count of workers), so a wait can say who is missing.
type Barrier struct {
	Dir          string
	Participants []string
}

// NewBarrier names a barrier inside the token namespace coord.
func NewBarrier(coord, name string, participants ...string) *Barrier {
	return &Barrier{Dir: rundir.BarrierDir(coord, name), Participants: participants}
}

// Arrive records that participant reached the barrier.
func (b *Barrier) Arrive(participant string) error {
	if !slices.Contains(b.Participants, participant) {
		return fmt.Errorf("barrier %s: %q is not a participant (participants: %s)", filepath.Base(b.Dir), participant, strings.Join(b.Participants, ", "))
	}
	if err := os.MkdirAll(b.Dir, 0o755); err != nil {
		return err
	}
	return atomicfile.Publish(filepath.Join(b.Dir, participant), []byte(time.Now().UTC().Format(time.RFC3339Nano)), 0o644)
}

// Missing lists participants that have not arrived.
func (b *Barrier) Missing() []string {
	var missing []string
	for _, p := range b.Participants {
		if _, err := os.Stat(filepath.Join(b.Dir, p)); err != nil {
			missing = append(missing, p)
		}
	}
	return missing
}

// Wait returns once every participant arrived, or an error naming those
// missing when ctx ends.
func (b *Barrier) Wait(ctx context.Context) error {
	for {
		missing := b.Missing()
		if len(missing) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("barrier %s: %s never arrived", filepath.Base(b.Dir), strings.Join(missing, ", "))
		case <-time.After(10 * time.Millisecond):
		}
	}
}
