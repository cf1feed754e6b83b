package reason_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// codes are the values of the Code constants, read from reason.go.
func codes(t *testing.T) []string {
	f, err := parser.ParseFile(token.NewFileSet(), "reason.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok {
			if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "Code" {
				for _, v := range vs.Values {
					s, _ := strconv.Unquote(v.(*ast.BasicLit).Value)
					out = append(out, s)
				}
			}
		}
		return true
	})
	return out
}

// TestDocsListEveryCode holds docs/evidence.md's censor code table against
// the constants: every code is documented, and every documented code exists.
func TestDocsListEveryCode(t *testing.T) {
	data, err := os.ReadFile("../../docs/evidence.md")
	if err != nil {
		t.Fatal(err)
	}
	// The censor code table is its section's: another table of the file
	// (the record formats) lists other names the same way.
	text := string(data)
	start := strings.Index(text, "\n## Censor reasons\n")
	if start < 0 {
		t.Fatal("docs/evidence.md has no section ## Censor reasons")
	}
	section := text[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	var documented []string
	for _, m := range regexp.MustCompile("(?m)^\\| (`[a-z-]+`(?:, `[a-z-]+`)*) \\|").FindAllStringSubmatch(section, -1) {
		for _, c := range strings.Split(m[1], ", ") {
			documented = append(documented, strings.Trim(c, "`"))
		}
	}
	all := codes(t)
	if len(all) < 20 {
		t.Fatalf("read only %d codes from reason.go", len(all))
	}
	for _, c := range all {
		if !slices.Contains(documented, c) {
			t.Errorf("code %s is not in the censor code table of docs/evidence.md", c)
		}
	}
	for _, c := range documented {
		if !slices.Contains(all, c) {
			t.Errorf("docs/evidence.md documents %s, which is no reason constant", c)
		}
	}
}

// TestCodesAreConstants fails when non-test code makes a reason from a
// string literal (reason.New("...") compiles, as Code is a string type):
// every code the gate emits must be a constant, so it is documented.
func TestCodesAreConstants(t *testing.T) {
	root, _ := filepath.Abs("../..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, walkErr error) error {
		if walkErr != nil {
			return walkErr
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, pos := range codesNotConstant(f) {
			t.Errorf("%s: %s", fset.Position(pos.Pos), pos.What)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// misuse is where a file makes a reason code other than by a constant of
// package reason, and how.
type misuse struct {
	token.Pos
	What string
}

// codesNotConstant lists a Code type declared outside package reason, and
// every reason.New or reason.Code given a literal code.
func codesNotConstant(f *ast.File) []misuse {
	var found []misuse
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && f.Name.Name != "reason" {
			if sel, ok := vs.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Code" {
				found = append(found, misuse{vs.Pos(), "a reason code declared outside package reason"})
			}
		}
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && x.Name == "reason" && (sel.Sel.Name == "New" || sel.Sel.Name == "Code") {
			if _, lit := call.Args[0].(*ast.BasicLit); lit {
				found = append(found, misuse{call.Pos(), "a reason code from a literal: use a constant of package reason"})
			}
		}
		return true
	})
	return found
}
