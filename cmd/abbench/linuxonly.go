package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
)

// launchOS is the system abbench runs on: a variable so a test can be on
// darwin without being built for it.
var launchOS = runtime.GOOS

// needLinux makes cmds, the commands that launch runs, refuse on any
// system but Linux before they do anything: a run's ranks are held to
// their controller by a parent-death signal, its allocation read from
// /proc, both Linux's alone. A reviewer's laptop still verifies, compares
// and imports; the refusal is a usage error (exit 2) that says so.
func needLinux(cmds ...*cobra.Command) {
	for _, c := range cmds {
		inner := c.RunE
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if launchOS != "linux" {
				return cli.Usage(fmt.Errorf("%s: runs need Linux (this is %s/%s)", cmd.CommandPath(), launchOS, runtime.GOARCH),
					"launch runs on a Linux host; here verify, compare, history, digest, validate, replay and import work")
			}
			return inner(cmd, args)
		}
	}
}
