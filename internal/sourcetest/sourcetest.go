// Package sourcetest walks the module's own Go source for the tests that
// forbid a contract's literals outside the one file that spells them
// (package rundir's run-directory names, package bundle's layout), any
// decision taken on an error's words (ErrorTextDecisions) and a package
// that does not say its job (Undocumented).
package sourcetest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// ModuleRoot is the module root, up rel (a relative path: ".." from a
// package one level down) from the test's package directory.
func ModuleRoot(t testing.TB, rel string) string {
	t.Helper()
	root, err := filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s", root)
	}
	return root
}

// StringConstants are the string constants of the Go file path, value to
// constant name: a contract's names read from its source, so the test
// that forbids them lists none itself. Fewer than atLeast fails the test
// (the file was moved or parsed as something else).
func StringConstants(t testing.TB, path string, atLeast int) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
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
	if len(names) < atLeast {
		t.Fatalf("found only %d string constants in %s", len(names), path)
	}
	return names
}

// Literal is a string literal of the source.
type Literal struct {
	Pos   token.Position
	Value string // unquoted
	// Joined says the literal is an argument of a call to a Join
	// (filepath.Join, path.Join): a path element.
	Joined bool
}

// Literals are the string literals of every non-test Go file under root
// but those of build outputs and test data (directories named testdata or
// starting with a dot) and the paths skip names (slash-separated, relative
// to root: a file or a directory). Import paths and struct tags are no
// literals a contract spells.
func Literals(t testing.TB, root string, skip ...string) []Literal {
	t.Helper()
	var lits []Literal
	walkSource(t, root, skip, 0, func(fset *token.FileSet, f *ast.File) {
		lits = append(lits, fileLiterals(fset, f)...)
	})
	return lits
}

// walkSource parses every non-test Go file of root's module but those of
// build outputs and test data (directories named testdata or starting with
// a dot), of other modules nested in it (a directory with a go.mod, as the
// go command leaves them out) and the paths skip names (slash-separated, relative to root: a
// file or a directory) in mode, and hands each to visit.
func walkSource(t testing.TB, root string, skip []string, mode parser.Mode, visit func(*token.FileSet, *ast.File)) {
	t.Helper()
	skipped := map[string]bool{}
	for _, s := range skip {
		skipped[s] = true
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && path != root && (skipped[rel] || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || isModule(path)):
			return filepath.SkipDir
		case d.IsDir() || skipped[rel] || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, mode)
		if err != nil {
			return err
		}
		visit(fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// isModule says whether dir is a module's root: it holds a go.mod.
func isModule(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}

// fileLiterals are the string literals of f, each once.
func fileLiterals(fset *token.FileSet, f *ast.File) []Literal {
	var lits []Literal
	joined := map[*ast.BasicLit]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec, *ast.Field:
			return false // import paths and struct tags are not names
		case *ast.CallExpr:
			// Inspect visits a call before its arguments.
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Join" {
				for _, a := range n.Args {
					if lit, ok := a.(*ast.BasicLit); ok {
						joined[lit] = true
					}
				}
			}
		case *ast.BasicLit:
			if s, err := strconv.Unquote(n.Value); n.Kind == token.STRING && err == nil {
				lits = append(lits, Literal{Pos: fset.Position(n.Pos()), Value: s, Joined: joined[n]})
			}
		}
		return true
	})
	return lits
}

// Undocumented are the directories under root (slash-separated, relative
// to it; "." for root) whose non-test Go files, as Literals walks them,
// hold no package comment.
func Undocumented(t testing.TB, root string) []string {
	t.Helper()
	documented := map[string]bool{}
	walkSource(t, root, nil, parser.PackageClauseOnly|parser.ParseComments, func(fset *token.FileSet, f *ast.File) {
		rel, _ := filepath.Rel(root, filepath.Dir(fset.Position(f.Package).Filename))
		rel = filepath.ToSlash(rel)
		documented[rel] = documented[rel] || f.Doc != nil
	})
	var out []string
	for dir, ok := range documented {
		if !ok {
			out = append(out, dir)
		}
	}
	slices.Sort(out)
	return out
}
