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
	// Flags are the flags the campaign was given, by name, as they print
	// (the seed always, as resolved); flags that only change the report
	// are not among them.
	Flags map[string]string `json:"flags"`
	// Binaries are abbench's own executables and every arm's build, by
	// content.
	Binaries []Binary `json:"binaries"`
	// Resumed are the times abbench run --resume continued the campaign.
	Resumed []time.Time `json:"resumed,omitempty"`
}

// Binary is one executable a campaign runs, by its content's SHA-256
// ("" when it was not there).
type Binary struct {
	Name   string `json:"name"` // abbench, abbench-rank, or "build of ARM"
	Path   string `json:"path"` // absolute
	SHA256 string `json:"sha256"`
}
