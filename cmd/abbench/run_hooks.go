package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/internal/campaign"
	"github.com/abbench/abbench/internal/rundir"
)

// hookError is a before_all hook that failed, with where its output is.
func hookError(err error, out string) error {
	var he *campaign.HookError
	if errors.As(err, &he) {
		// A changed hook is a changed scenario, which --resume refuses:
		// "run again" alone led to a directory no longer empty, whose
		// hint pointed to a --resume that then refused the fix.
		return &cli.Error{Code: cli.ExitError, Err: err, Hint: fmt.Sprintf("the hooks' output is in %s; once what the hook needs is fixed, abbench run --resume %s; a fixed hook changes the scenario, which --resume refuses: run it with a new --out",
			filepath.Join(out, rundir.HooksDir), out)}
	}
	return err
}

// afterAllError says on stderr how each after_all hook that failed ended;
// a campaign that was otherwise fine then exits 1 with it, one that was
// not keeps its own status.
func afterAllError(stderr io.Writer, res *campaign.Result, err error) error {
	if len(res.AfterAll) == 0 {
		return err
	}
	if err != nil {
		for _, f := range res.AfterAll {
			// Said beside the campaign's own error, which decides the status.
			_, _ = fmt.Fprintf(stderr, "abbench: %s\n", f)
		}
		return err
	}
	return &cli.Error{Code: cli.ExitError, Err: errors.New(strings.Join(res.AfterAll, "\n")),
		Hint: "the runs and the comparison above stand; what the hooks were to undo may not be undone"}
}
