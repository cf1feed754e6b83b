package rundir

import (
	"fmt"
	"maps"
	"slices"
)

// optionOfFlag is what each flag name a plan written before
// Resumable.Options recorded means: abbench run's flags as they were then
// (and --threshold, the older name of --smallest-effect). Frozen: a flag
// renamed later changes the command's table of options, never this one,
// so the plans written before still resume.
var optionOfFlag = map[string]string{
	"launcher": "launcher", "repeat": "blocks", "until": "stop_rule", "min-pairs": "min_pairs", "max-pairs": "max_pairs",
	"warmup": "warmup_blocks", "order": "order", "seed": "order_seed", "max-pending": "max_queued", "keep-going": "keep_going",
	"calibrate": "calibrate_arm", "pair-nodes": "pair_nodes", "concurrent": "concurrent_blocks",
	"sign-key": "sign_key", "sign-agent": "sign_agent", "sign-pub": "sign_agent_key", "archive": "archive",
	"allowed-signers": "allowed_signers", "identity": "signer_identity",
	"baseline": "baseline", "metric": "metrics", "smallest-effect": "smallest_effect", "threshold": "smallest_effect",
	"alpha": "alpha", "method": "paired_method", "calibration": "calibration_file", "fail-on": "fail_on",
}

// FlagOptions are the options the flag names of plans written before
// Resumable.Options mean, each once, sorted: the command that reads
// such a plan gives every one of them a flag.
func FlagOptions() []string {
	return slices.Compact(slices.Sorted(maps.Values(optionOfFlag)))
}

// FlagsError refuses the flags a plan written before Resumable.Options
// records: one that no abbench run ever had, or flags beside options. No
// abbench wrote either: the file was edited.
type FlagsError struct {
	Flag string // the flag no abbench run had; "" for flags beside options
}

func (e *FlagsError) Error() string {
	if e.Flag == "" {
		return fmt.Sprintf("%s's resume records both options and flags, which no abbench writes: the file was edited", PlanFile)
	}
	return fmt.Sprintf("%s's resume.flags records --%s, a flag abbench run never had: the file was edited", PlanFile, e.Flag)
}

// UpgradeFlags makes the flags of a plan written before Options into its
// Options, by what each flag meant then (*FlagsError for a flag no
// abbench run had, or flags beside options); a plan with Options alone is
// left as it is. Written again, the plan records Options alone.
func (r *Resumable) UpgradeFlags() error {
	switch {
	case r.Flags == nil:
		return nil
	case r.Options != nil:
		return &FlagsError{}
	}
	options := make(map[string]string, len(r.Flags))
	for _, name := range slices.Sorted(maps.Keys(r.Flags)) {
		key, ok := optionOfFlag[name]
		if !ok {
			return &FlagsError{Flag: name}
		}
		options[key] = r.Flags[name]
	}
	r.Options, r.Flags = options, nil
	return nil
}
