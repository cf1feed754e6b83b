package rundir

import (
	"encoding/json"
	"time"
)

// Resumable is what a campaign's plan.json records for abbench run
// --resume, which continues the campaign only when all of it is as it
// was: the scenario file every run's controller reads, the scenario
// itself, the flags the campaign was given and every binary it runs.
type Resumable struct {
	// ScenarioFile is the scenario file every run's controller reads,
	// absolute.
	ScenarioFile string `json:"scenario_file"`
	// Scenario is the scenario's canonical encoding (the matched digest's)
	// with the arms as they are, env values and builds included, so that
	// a resume names the keys that changed.
	Scenario json.RawMessage `json:"scenario"`
	// Options are the options the campaign was given, each by what it
	// means (its key, such as "blocks" or "smallest_effect"), never by the
	// flag that gave it, so that renaming a flag leaves the plans written
	// before it resumable; their values as they print (the order's seed
	// always, as resolved). Options that only change the report are not
	// among them.
	Options map[string]string `json:"options,omitempty"`
	// Flags are the options as plans written before Options recorded
	// them: by abbench run's flag names of then. Reading such a plan
	// makes them Options (UpgradeFlags).
	Flags map[string]string `json:"flags,omitempty"`
	// Binaries are abbench's own executables and every arm's build, by
	// content.
	Binaries []Binary `json:"binaries"`
	// Executables are the files the roles' commands run and read: each
	// command's program as the rank resolves it on its PATH, and every
	// other argument that names a regular file by an absolute path, by
	// content (campaign.Config's executables say the rule).
	Executables []Executable `json:"executables,omitempty"`
	// Resumed are the times abbench run --resume continued the campaign.
	Resumed []time.Time `json:"resumed,omitempty"`
	// NewBlocks are the resumes that continued the campaign after its
	// system under test changed (abbench run --resume-new-blocks).
	NewBlocks []NewBlocks `json:"new_blocks,omitempty"`
}

// NewBlocks is one resume after the system under test changed: when,
// what changed (as a refused resume names it), and the runs, ended
// before the change, that ran again so that each of their blocks is of
// one system.
type NewBlocks struct {
	At      time.Time `json:"at"`
	Changes []string  `json:"changes"`
	Again   []int     `json:"again"`
}

// Executable is one file a role's command names, as the campaign began:
// Arg is the argument as expanded (a program's name as the command gives
// it, or a file's absolute path), Path the file it resolved to ("" when
// none was there), SHA256 the digest of its first Hashed bytes of Size
// (a file past the cap is held by its first bytes and its size; one past
// the campaign's whole budget by its size alone, SHA256 and Hashed empty).
type Executable struct {
	Role   string `json:"role"`
	Arg    string `json:"arg"`
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	Hashed int64  `json:"hashed"`
}

// Binary is one executable a campaign runs, by its content's SHA-256
// ("" when it was not there).
type Binary struct {
	Name   string `json:"name"` // abbench, abbench-rank, or "build of ARM"
	Path   string `json:"path"` // absolute
	SHA256 string `json:"sha256"`
}
