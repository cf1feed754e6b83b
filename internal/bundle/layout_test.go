package bundle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/sourcetest"
)

// TestNoBundleNameLiterals fails when a name of the bundle's tree (or its
// signature namespace or statement types) is spelled as a string literal
// in non-test code anywhere in the module but layout.go: each is spelled
// once, as package rundir spells the run directory's. The names are
// layout.go's string constants, read from the source so the test lists
// none itself.
func TestNoBundleNameLiterals(t *testing.T) {
	names := sourcetest.StringConstants(t, "layout.go", 8)
	for _, lit := range sourcetest.Literals(t, sourcetest.ModuleRoot(t, "../.."), "internal/bundle/layout.go") {
		if c := names[lit.Value]; c != "" {
			t.Errorf("%s: %q spelled outside layout.go (use bundle.%s)", lit.Pos, lit.Value, c)
		}
	}
}

// ReadProvenance reads what Write recorded; a directory without one (a run
// that is no bundle) has none, and one that does not parse is an error
// naming it.
func TestReadProvenance(t *testing.T) {
	b := writeBundle(t, nil, 4)
	prov, err := ReadProvenance(b)
	if err != nil || prov == nil || strings.Join(prov.Hosts, ",") != "node-1" || prov.Token != "tok-1" || prov.Environment["ctx-0"] == nil {
		t.Fatalf("read %+v, %v", prov, err)
	}
	if prov, err := ReadProvenance(t.TempDir()); prov != nil || err != nil {
		t.Fatalf("a directory without provenance: %+v, %v", prov, err)
	}
	os.WriteFile(filepath.Join(b, ProvenanceFile), []byte("{"), 0o644)
	if _, err := ReadProvenance(b); err == nil || !strings.Contains(err.Error(), ProvenanceFile) {
		t.Fatalf("a provenance that does not parse: %v", err)
	}
}
