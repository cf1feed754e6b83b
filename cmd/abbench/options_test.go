package main

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/cmd/abbench/internal/comparison"
	"github.com/abbench/abbench/internal/campaign"
	"github.com/abbench/abbench/internal/compare"
	"github.com/abbench/abbench/internal/scenarios"
)

// Without --repeat an abba campaign of two arms runs until conclusive, a
// calibration's pairs become its most pairs unless --max-pairs is given,
// and the seed comes from the clock unless --seed is.
func TestCompleteRun(t *testing.T) {
	s, err := scenarios.Load("../../scenarios/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	given := func(flags ...string) func(string) bool {
		return func(f string) bool { return strings.Contains(" "+strings.Join(flags, " ")+" ", " "+f+" ") }
	}
	cal := compare.Options{Calibration: &compare.Calibration{PairsNeeded: 7}}
	for _, c := range []struct {
		name     string
		cfg      campaign.Config
		co       compare.Options
		given    []string
		until    string
		repeat   int
		maxPairs int
	}{
		{"defaults", campaign.Config{Order: campaign.OrderABBA, Repeat: 0, MinPairs: 3, MaxPairs: 10}, compare.Options{}, nil, campaign.UntilConclusive, 0, 10},
		{"--repeat 2", campaign.Config{Order: campaign.OrderABBA, Repeat: 2, MaxPairs: 10}, compare.Options{}, []string{"repeat"}, "", 2, 10},
		{"random order", campaign.Config{Order: campaign.OrderRandom, Repeat: 0, MaxPairs: 10}, compare.Options{}, nil, "", 1, 10},
		{"--calibrate", campaign.Config{Order: campaign.OrderABBA, Repeat: 0, Calibrate: "async", MaxPairs: 10}, compare.Options{}, nil, "", 1, 10},
		{"--calibration", campaign.Config{Order: campaign.OrderABBA, Repeat: 0, MinPairs: 3, MaxPairs: 10}, cal, nil, campaign.UntilConclusive, 0, 7},
		{"--calibration --max-pairs 12", campaign.Config{Order: campaign.OrderABBA, Repeat: 0, MinPairs: 3, MaxPairs: 12}, cal, []string{"max-pairs"}, campaign.UntilConclusive, 0, 12},
		{"--seed 5 --until conclusive --repeat 3", campaign.Config{Order: campaign.OrderABBA, Repeat: 3, Seed: 5, Until: campaign.UntilConclusive}, compare.Options{}, []string{"seed", "repeat"}, campaign.UntilConclusive, 3, 0},
	} {
		cfg := c.cfg
		completeRun(&cfg, s, c.co, given(c.given...))
		if cfg.Until != c.until || cfg.Repeat != c.repeat || cfg.MaxPairs != c.maxPairs || cfg.Scenario != s {
			t.Errorf("%s: until %q, repeat %d, max pairs %d; want %q, %d, %d", c.name, cfg.Until, cfg.Repeat, cfg.MaxPairs, c.until, c.repeat, c.maxPairs)
		}
		if seeded := cfg.Seed != c.cfg.Seed; seeded == given(c.given...)("seed") {
			t.Errorf("%s: seed %d from %d: the clock gives it only without --seed", c.name, cfg.Seed, c.cfg.Seed)
		}
	}
}

// run --help states no default for --repeat that a campaign without it
// does not run: the quickstart's runs pairs until conclusive, not 1 block.
func TestRunHelpSaysTheRepeatDefaultThatRuns(t *testing.T) {
	s, err := scenarios.Load("../../scenarios/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fs := newRunCmd().Flags()
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	cfg := campaign.Config{Order: campaign.OrderABBA}
	cfg.Repeat, _ = fs.GetInt("repeat")
	completeRun(&cfg, s, compare.Options{}, fs.Changed)
	var line string
	for l := range strings.Lines(fs.FlagUsages()) {
		if strings.Contains(l, "--repeat ") {
			line = l
		}
	}
	said := regexp.MustCompile(`\(default (\d+)\)`).FindStringSubmatch(line)
	if said != nil && (cfg.Until != "" || said[1] != strconv.Itoa(cfg.Repeat)) {
		t.Errorf("run --help says --repeat defaults to %s; without it the quickstart runs until %q, repeat %d:\n%s", said[1], cfg.Until, cfg.Repeat, line)
	}
	if cfg.Until == campaign.UntilConclusive && !strings.Contains(line, "until conclusive") {
		t.Errorf("without --repeat the quickstart runs until conclusive; run --help does not say so:\n%s", line)
	}
}

// A library's field error is said with the flags of the command that
// filled the field; every flag named is one of that command's.
func TestFieldErrorsSayTheFlags(t *testing.T) {
	s, err := scenarios.Load("../../scenarios/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, runErr := campaign.Plan(&campaign.Config{Scenario: s, Launcher: "local", Order: campaign.OrderRandom, Until: campaign.UntilConclusive, MinPairs: 3, MaxPairs: 6})
	for _, c := range []struct {
		err   error
		flags cli.FieldFlags
		want  string
	}{
		{runErr, runFlags, "--until conclusive: needs --order abba (the looks compare within pairs)"},
		{runErr, planFlags, "--max-pairs N: needs --order abba (the looks compare within pairs)"},
		{compare.Options{Effect: -1}.Check(), comparison.FieldFlags, "--smallest-effect -1: must be positive"},
		{compare.Options{FailOn: "slower"}.Check(), comparison.FieldFlags, `--fail-on "slower": choose regression, inconclusive, undecided, or several comma-separated`},
	} {
		var inv *campaign.InvalidError
		err := c.err
		if errors.As(err, &inv) {
			err = inv.Err
		}
		got := cli.FieldUsage(err, c.flags, "")
		if code, _ := cli.Classify(got); code != cli.ExitUsage || got.Error() != c.want {
			t.Errorf("%v: %q (exit %d), want %q (exit 2)", c.err, got, code, c.want)
		}
	}
	root := newRoot(new(strings.Builder), new(strings.Builder))
	for cmd, flags := range map[string]cli.FieldFlags{"run": runFlags, "plan": planFlags, "compare": comparison.FieldFlags} {
		c, _, err := root.Find([]string{cmd})
		if err != nil {
			t.Fatal(err)
		}
		for field, flag := range flags {
			name, _, _ := strings.Cut(strings.TrimPrefix(flag, "--"), " ")
			if c.Flags().Lookup(name) == nil {
				t.Errorf("abbench %s names %s by %s, which is no flag of it", cmd, field, flag)
			}
		}
	}
}
