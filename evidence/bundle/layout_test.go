package bundle

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// layoutNames are the string constants of layout.go, read from the source
// so the test lists none itself: the bundle's names and identifiers.
func layoutNames(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "layout.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok {
			for i, v := range vs.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					names[s] = vs.Names[i].Name
				}
			}
		}
		return true
	})
	if len(names) < 8 {
		t.Fatalf("found only %d names in layout.go", len(names))
	}
	return names
}

// TestNoBundleNameLiterals fails when a name of the bundle's tree (or its
// signature namespace or statement types) is spelled as a string literal
// in non-test code anywhere in the module but layout.go: each is spelled
// once, as package rundir spells the run directory's.
func TestNoBundleNameLiterals(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s", root)
	}
	names := layoutNames(t)
	self, _ := filepath.Abs("layout.go")
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root:
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || path == self:
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ImportSpec, *ast.Field:
				return false // import paths and struct tags are not names
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); n.Kind == token.STRING && err == nil && names[s] != "" {
					t.Errorf("%s: %q spelled outside layout.go (use bundle.%s)", fset.Position(n.Pos()), s, names[s])
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
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
