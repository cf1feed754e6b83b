package rundir_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// repoRoot is the module root, two levels up from this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s", root)
	}
	return root
}

// contractNames are the values of the string constants in names.go: the
// run directory's names, read from the source so the test lists none itself.
func contractNames(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "names.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, v := range vs.Values {
			if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				s, _ := strconv.Unquote(lit.Value)
				names[s] = vs.Names[i].Name
			}
		}
		return true
	})
	if len(names) < 10 {
		t.Fatalf("found only %d names in names.go", len(names))
	}
	return names
}

// TestNoRunDirectoryLiterals fails when a run-directory name is spelled as a
// literal outside rundir in non-test code: as a file name (it has a dot or
// is LATEST/job_id), or as a path element given to filepath.Join. The
// simulated server (cmd/disaggsim) is the system under test, not abbench,
// and is left out.
func TestNoRunDirectoryLiterals(t *testing.T) {
	root := repoRoot(t)
	names := contractNames(t)
	var found []string
	forEachSource(t, root, func(fset *token.FileSet, f *ast.File) {
		found = append(found, runDirLiterals(fset, f, names)...)
	})
	for _, f := range found {
		t.Errorf("run-directory name spelled outside rundir: %s", f)
	}
}

// forEachSource parses every non-test Go file under root, but rundir's own,
// the simulated server's and those of build outputs and test data, and
// calls fn with each.
func forEachSource(t *testing.T, root string, fn func(*token.FileSet, *ast.File)) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch rel {
			case "rundir", "cmd/disaggsim", ".git", "testdata", "out", "bin":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		fn(fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// runDirLiterals lists the string literals of f that spell a name of the
// contract (names: value to constant) as a file name (it has a dot or is
// LATEST/job_id) or as a path element given to a Join, each with its
// position and the constant to use.
func runDirLiterals(fset *token.FileSet, f *ast.File, names map[string]string) []string {
	var found []string
	check := func(lit *ast.BasicLit, inJoin bool) {
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return
		}
		c, ok := names[s]
		if ok && (inJoin || strings.Contains(s, ".") || s == strings.ToUpper(s) || strings.Contains(s, "_")) {
			found = append(found, fset.Position(lit.Pos()).String()+": "+strconv.Quote(s)+" (use rundir."+c+")")
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec, *ast.Field:
			return false // import paths and struct tags are not names
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); !ok || sel.Sel.Name != "Join" {
				return true
			}
			for _, a := range n.Args {
				if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					check(lit, true)
				}
			}
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				check(n, false)
			}
		}
		return true
	})
	return found
}

// TestImportBoundaries fails when evidence, its bundles or its statistics
// depend on the process controller or the launchers, or when rundir (which
// the rank wrapper links) depends on more than the standard library and
// abbench's own leaf packages.
func TestImportBoundaries(t *testing.T) {
	root := repoRoot(t)
	const mod = "github.com/abbench/abbench/"
	deps := func(pkg string) []string {
		cmd := exec.Command("go", "list", "-deps", mod+pkg)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		return strings.Fields(string(out))
	}
	for _, pkg := range []string{"evidence", "evidence/bundle", "evidence/compare", "rundir", "scenarios"} {
		for _, d := range deps(pkg) {
			for _, banned := range []string{"arms", "launcher", "campaign", "armpipeline"} {
				if d == mod+banned || strings.HasPrefix(d, mod+banned+"/") {
					t.Errorf("%s imports %s (through go list -deps): it must not depend on the process side", pkg, d)
				}
			}
		}
	}
	allowed := map[string]bool{mod + "rundir": true, mod + "internal/atomicfile": true, mod + "reason": true}
	for _, d := range deps("rundir") {
		// A standard library path has no dot in its first element.
		if first, _, _ := strings.Cut(d, "/"); strings.Contains(first, ".") && !allowed[d] {
			t.Errorf("rundir depends on %s: it may use only the standard library, internal/atomicfile and reason", d)
		}
	}
}
