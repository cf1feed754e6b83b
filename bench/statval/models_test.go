package main

import (
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/decide"
)

// -models picks the noise models by words of their names, each keeping
// its index (and so the seed it has in the full run), and refuses a word
// no model holds rather than printing an empty table.
func TestPickModelsByWordsOfTheirNames(t *testing.T) {
	all, err := pickModels("")
	if err != nil || len(all) != len(decide.Models) {
		t.Fatalf("no -models: %d of %d models, %v", len(all), len(decide.Models), err)
	}
	picked, err := pickModels("CV 1%,drift")
	if err != nil || len(picked) == 0 {
		t.Fatalf("-models 'CV 1%%,drift': %v, %v", picked, err)
	}
	in := map[int]bool{}
	for _, i := range picked {
		in[i] = true
	}
	for i, m := range decide.Models {
		holds := strings.Contains(m.Name, "CV 1%") || strings.Contains(m.Name, "drift")
		if holds != in[i] {
			t.Errorf("model %d %q: picked %v, its name holds a word %v", i, m.Name, in[i], holds)
		}
	}
	if _, err := pickModels("no such noise"); err == nil {
		t.Error("a word no model holds was accepted")
	}
}
