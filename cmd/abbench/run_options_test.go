package main

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/abbench/abbench/internal/rundir"
)

// Every flag of abbench run gives an option plan.json records by meaning,
// or only changes the report; every option names a flag run has; and
// every option a plan recorded by flag name before options has a flag
// today, so those plans resume.
func TestEveryRunFlagIsAnOption(t *testing.T) {
	fs := newRunCmd().Flags()
	fs.VisitAll(func(f *pflag.Flag) {
		if runOption(f.Name) == "" && !slices.Contains(reportFlags, f.Name) {
			t.Errorf("--%s gives no option of runOptionFlags and is not a report flag: a resume would not hold the campaign to it", f.Name)
		}
	})
	for key, flag := range runOptionFlags {
		if fs.Lookup(flag) == nil {
			t.Errorf("option %s: abbench run has no --%s", key, flag)
		}
	}
	for _, key := range rundir.FlagOptions() {
		if _, ok := runOptionFlags[key]; !ok {
			t.Errorf("option %s of the plans that record flags: no flag gives it now, so they would not resume", key)
		}
	}
}

// plan.json records the campaign's options by what they mean, never by
// flag name (a renamed flag would leave old campaigns unresumable), and
// a resume gives each back through the flag that gives it now, a flag
// given anew keeping its value.
func TestRunOptionsRecordedByMeaning(t *testing.T) {
	fs := newRunCmd().Flags()
	if err := fs.Parse([]string{"--repeat", "2", "--threshold", "3", "--launcher", "local", "--out", "o", "-v"}); err != nil {
		t.Fatal(err)
	}
	got := recordedOptions(fs, 5)
	want := map[string]string{"blocks": "2", "smallest_effect": "3", "launcher": "local", "order_seed": "5"}
	if !maps.Equal(got, want) {
		t.Errorf("recorded %v, want %v", got, want)
	}
	again := newRunCmd().Flags()
	if err := again.Parse([]string{"--launcher", "slurm"}); err != nil {
		t.Fatal(err)
	}
	if err := restoreOptions(again, got); err != nil {
		t.Fatal(err)
	}
	for flag, v := range map[string]string{"repeat": "2", "smallest-effect": "3", "launcher": "slurm", "seed": "5"} {
		if s := again.Lookup(flag).Value.String(); s != v {
			t.Errorf("--%s restored as %s, want %s", flag, s, v)
		}
	}
	err := restoreOptions(newRunCmd().Flags(), map[string]string{"repeat": "2"})
	if err == nil || !strings.Contains(err.Error(), `option "repeat": abbench run has no flag that gives it`) {
		t.Errorf("a plan that names an option by a flag's name: %v", err)
	}
	if got := runOptionName("blocks"); got != "flag --repeat" {
		t.Errorf("the blocks option said as %q, want its flag", got)
	}
}
