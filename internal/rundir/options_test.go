package rundir

import (
	"errors"
	"maps"
	"testing"
)

// The flags of a plan written before options are read as the options they
// meant, an old name of a flag too; a flag no abbench had, or flags beside
// options, are refused naming what is wrong; a plan of options is kept.
func TestUpgradeFlags(t *testing.T) {
	r := Resumable{Flags: map[string]string{"repeat": "3", "threshold": "2", "seed": "7", "sign-pub": "k.pub"}}
	if err := r.UpgradeFlags(); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"blocks": "3", "smallest_effect": "2", "order_seed": "7", "sign_agent_key": "k.pub"}
	if !maps.Equal(r.Options, want) || r.Flags != nil {
		t.Errorf("options %v, flags %v; want %v and no flags", r.Options, r.Flags, want)
	}
	kept := Resumable{Options: map[string]string{"blocks": "3"}}
	if err := kept.UpgradeFlags(); err != nil || !maps.Equal(kept.Options, map[string]string{"blocks": "3"}) {
		t.Errorf("a plan of options: %v, %v", kept.Options, err)
	}
	for name, r := range map[string]Resumable{
		"no-such-flag": {Flags: map[string]string{"repeat": "3", "no-such-flag": "1"}},
		"":             {Flags: map[string]string{"repeat": "3"}, Options: map[string]string{"blocks": "3"}},
	} {
		var fe *FlagsError
		if err := r.UpgradeFlags(); !errors.As(err, &fe) || fe.Flag != name {
			t.Errorf("flags %v, options %v: %v, want a FlagsError naming %q", r.Flags, r.Options, err, name)
		}
	}
}
