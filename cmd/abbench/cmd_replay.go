package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abbench/abbench/evidence"
	"github.com/abbench/abbench/evidence/bundle"
)

type replayOptions struct {
	arm    string
	from   string
	write  bool
	format formatFlag
}

func newReplayCmd() *cobra.Command {
	var opts replayOptions
	cmd := &cobra.Command{
		Use:   "replay SCENARIO --arm NAME --from DIR",
		Short: "Re-extract an earlier run's evidence from its logs, without running",
		Long: `replay derives the evidence of a finished (or failed) arm run again from the
files in its directory (status.json, the scoped logs, the throughput record),
with the scenario's rules as they are now. Nothing is started. A reviewer can
re-check an artifact this way, and a fix to a rule can be tried on an old
failure. DIR is an attempt directory (holding status.json), the --out
directory of abbench arm (its LATEST attempt is used), or a bundle
(a directory or .tar.gz), whose logs hold only their scoped bytes.

The evidence is printed; --write also replaces DIR's evidence.json.`,
		Example: `  abbench replay scenarios/quickstart.yaml --arm async --from out/async`,
		Args:    argsUsage(cobra.ExactArgs(1), "abbench replay SCENARIO --arm NAME --from DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(cmd.OutOrStdout(), opts, args[0])
		},
	}
	cmd.Flags().StringVar(&opts.arm, "arm", "", "the arm the run belongs to (required)")
	cmd.Flags().StringVar(&opts.from, "from", "", "the run's directory (required)")
	cmd.Flags().BoolVar(&opts.write, "write", false, "also write evidence.json into the run directory")
	addFormatFlag(cmd.Flags(), &opts.format, "table", "json")
	return cmd
}

// attemptDir resolves an arm --out directory to its latest attempt.
func attemptDir(dir string) (string, error) {
	if _, err := os.Stat(filepath.Join(dir, "status.json")); err == nil {
		return dir, nil
	}
	token, err := os.ReadFile(filepath.Join(dir, "LATEST"))
	if err != nil {
		return "", usagef("give the directory of an abbench arm run", "%s holds neither status.json nor LATEST", dir)
	}
	return filepath.Join(dir, strings.TrimSpace(string(token))), nil
}

func runReplay(stdout io.Writer, opts replayOptions, path string) error {
	if err := opts.format.check(); err != nil {
		return err
	}
	if opts.arm == "" || opts.from == "" {
		return usagef("abbench replay SCENARIO --arm NAME --from DIR", "--arm and --from are required")
	}
	s, err := loadScenario(path)
	if err != nil {
		return err
	}
	if _, ok := s.Arms[opts.arm]; !ok {
		return usagef("", "arm %q is not in %s (arms: %v)", opts.arm, path, s.ArmOrder)
	}
	from, cleanup, err := openBundle(opts.from)
	if err != nil {
		return usageError(err, "")
	}
	defer cleanup()
	dir, err := attemptDir(from)
	if err != nil {
		return err
	}
	var ev *evidence.Evidence
	if bundle.IsBundle(dir) {
		if opts.write {
			return usagef("a bundle is signed as it is", "--write cannot change a bundle")
		}
		ev, err = bundle.Recollect(s, opts.arm, dir)
	} else {
		ev, err = evidence.Collect(s, opts.arm, dir)
	}
	if err != nil {
		return usageError(err, "")
	}
	if opts.write {
		if err := writeEvidence(dir, ev); err != nil {
			return err
		}
	}
	if opts.format.value == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(ev); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "replay of arm %s, token %s (%s)\n", ev.Arm, ev.Token, dir)
		printEvidence(stdout, ev)
	}
	return evidenceErr(ev, dir)
}
