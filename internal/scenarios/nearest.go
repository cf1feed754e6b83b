package scenarios

import (
	"os"
	"path/filepath"

	"github.com/abbench/abbench/internal/suggest"
)

// resolvedAs says where a path the scenario gives relative to itself
// lies, when that is not the path as written: the scenario file's
// directory is not the reader's working directory, and "prompts.jsonl
// does not exist" beside a file the reader sees there is a riddle.
// A scenario given by a relative path resolves to a relative path too,
// often the written one ("../testdata/p.jsonl" beside a scenario copied to
// the working directory): it is said absolute, so that the reader sees
// which directory was read.
func resolvedAs(written, resolved string) string {
	if abs, err := filepath.Abs(resolved); err == nil {
		resolved = abs
	}
	if filepath.Clean(written) == filepath.Clean(resolved) {
		return ""
	}
	return " (" + resolved + ")"
}

// nearest says what a missing file's directory holds closest to its
// name, as the scenario would write it: a mistyped name
// (prompts-265.jsonl for prompts-256.jsonl) is the usual cause; and
// where the directory is missing too, that. path is written as the
// scenario writes it, resolved where it lies.
func nearest(written, path string) string {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "paths are relative to the scenario file; its directory " + dir + " cannot be read either"
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	best := suggest.Closest(name, names, len(name)/3) // a third of the name at most: beyond, no suggestion
	if best == "" {
		return "paths are relative to the scenario file"
	}
	return "paths are relative to the scenario file; did you mean " + filepath.Join(filepath.Dir(written), best) + "?"
}
