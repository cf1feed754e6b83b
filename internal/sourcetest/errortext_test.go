package sourcetest

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// No code of the module decides on an error's text or a reason's detail:
// those are words for a person, reworded and quoted without notice.
func TestNoDecisionOnErrorText(t *testing.T) {
	for _, d := range ErrorTextDecisions(t, ModuleRoot(t, "../..")) {
		t.Errorf("%s: %s decides on words meant for a person: use a typed error (errors.Is, errors.As), an exit status or a reason's code", d.Pos, d.Expr)
	}
}

// Every way of deciding on an error's words is found, through a variable
// and a wrapping call too, and saying or reshaping them is not.
func TestErrorTextDecisionsFound(t *testing.T) {
	const src = `package p
import ("errors"; "regexp"; "strings"; "fmt")
var re = regexp.MustCompile("x")
func decides(err error, r struct{ Detail string }) {
	_ = strings.Contains(err.Error(), "exited with status 127")
	_ = strings.HasPrefix(strings.ToLower(err.Error()), "not found")
	_ = err.Error() == "EOF"
	_ = "EOF" != err.Error()
	msg := err.Error()
	_ = strings.HasSuffix(msg, "not found")
	var d = r.Detail
	_ = strings.Index(d, "127") >= 0
	_ = re.MatchString(err.Error())
	switch err.Error() {
	}
	_, _, _ = strings.Cut(fmt.Sprint(err.Error()), ": ")
}
func says(err error) {
	fmt.Println(strings.TrimSpace(err.Error()))
	_ = errors.Is(err, errors.ErrUnsupported)
	s := "x"
	_ = strings.Contains(s, "y")
	_ = func() string { return err.Error() }
	_ = err.Error() != ""
	if i := strings.LastIndex(msg2(err), ": "); i > 0 {
	}
	m := err.Error()
	_ = m[strings.LastIndex(m, ": ")+1:]
}
func msg2(err error) string { return err.Error() }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	lines := map[int]string{}
	for _, d := range fileDecisions(fset, f) {
		lines[d.Pos.Line] = d.Expr
	}
	want := []int{5, 6, 7, 8, 10, 12, 13, 14, 16}
	for _, l := range want {
		if _, ok := lines[l]; !ok {
			t.Errorf("line %d (%s) not found", l, strings.Split(src, "\n")[l-1])
		}
	}
	if len(lines) != len(want) {
		t.Errorf("found %v, want lines %v only", lines, want)
	}
}
