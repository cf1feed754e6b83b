package records

import (
	"maps"
	"slices"
)

// validVerdicts are the formats whose tool can say its run is valid:
// only a record of one of them can pass {record: valid}. fio and sysbench
// judge a run only by stopping it (a signal line, FATAL:), so their
// verdict is never a valid one; the other formats give none.
// TestValidVerdictsAreTheCorpusOnes holds this list to what the parsers
// read from real files.
var validVerdicts = map[string]bool{"mlperf": true, "k6": true, "pgbench": true, "gobench": true, "nccl-tests": true}

// SaysValid reports whether the tool of format can say its run is valid,
// so that a scenario's {record: valid} can hold at all.
func SaysValid(format string) bool { return validVerdicts[format] }

// ValidVerdictFormats are the formats SaysValid holds for, sorted.
func ValidVerdictFormats() []string { return slices.Sorted(maps.Keys(validVerdicts)) }
