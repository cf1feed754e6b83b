package campaign

import (
	"context"

	"github.com/abbench/abbench/internal/launcher"
)

// CheckLauncher asks the campaign's launcher, before anything of the
// campaign is written, whether its runs could start at all (a Kubernetes
// account's rights): a campaign refused then leaves no --out to clear.
func CheckLauncher(ctx context.Context, cfg *Config) error {
	l, _ := newLauncher(cfg)
	if c, ok := l.(launcher.Checker); ok {
		return c.Check(ctx)
	}
	return nil
}
