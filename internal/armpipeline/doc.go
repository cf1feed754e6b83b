// Package armpipeline is what abbench arm does, and what each run of a
// campaign executes in its allocation: run one arm there (package arms),
// collect its evidence into evidence.json, and write its bundle. Replay
// derives a run's evidence again from what it left, with the scenario's
// rules as they are now.
//
// The files it reads and writes are those of package rundir; the bundle's
// are those of package bundle.
package armpipeline
