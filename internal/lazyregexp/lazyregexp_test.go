package lazyregexp

import (
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// undeclareAfter drops the patterns a test declares from the package's
// list when it ends, so a bad one it declares on purpose is not left for
// CompileAll.
func undeclareAfter(t *testing.T) {
	declaredMu.Lock()
	n := len(declared)
	declaredMu.Unlock()
	t.Cleanup(func() {
		declaredMu.Lock()
		declared = declared[:n]
		declaredMu.Unlock()
	})
}

func TestCompiledOnFirstUseOnly(t *testing.T) {
	undeclareAfter(t)
	r := New(`^a+b$`)
	if r.re != nil {
		t.Fatal("compiled when declared")
	}
	if !r.MatchString("aab") || r.MatchString("ba") {
		t.Fatal("does not match as regexp.MustCompile(`^a+b$`) does")
	}
	first := r.re
	if first == nil || r.Regexp() != first {
		t.Fatal("not compiled once and kept")
	}
}

func TestBadPatternDeclaredWithoutPanic(t *testing.T) {
	undeclareAfter(t)
	New(`(`) // must not panic: a command that never uses it must start
}

func TestBadPatternPanicsOnFirstUseAsMustCompile(t *testing.T) {
	undeclareAfter(t)
	for _, bad := range []string{`a(b`, "[z-a]`"} { // one that cannot be backquoted too
		want := panicOf(func() { regexp.MustCompile(bad) })
		r := New(bad)
		for range 2 { // and on every later use, not only the first
			if got := panicOf(func() { r.MatchString("ab") }); got != want {
				t.Fatalf("panic %q, want regexp.MustCompile's %q", got, want)
			}
		}
	}
}

func panicOf(f func()) (msg string) {
	defer func() { msg = fmt.Sprint(recover()) }()
	f()
	return "no panic"
}

func TestCompileAllNamesTheDeclaration(t *testing.T) {
	undeclareAfter(t)
	New(`ok`)
	_, file, line, _ := runtime.Caller(0)
	New(`[z-a]`)
	err := CompileAll()
	if err == nil {
		t.Fatal("a pattern that does not compile passed CompileAll")
	}
	want := fmt.Sprintf("%s:%d: regular expression \"[z-a]\" does not compile", file, line+1)
	if !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %q, want it to start %q", err, want)
	}
}

func TestCompileAllPassesGoodPatterns(t *testing.T) {
	undeclareAfter(t)
	r := New(`x\d+`)
	if err := CompileAll(); err != nil {
		t.Fatal(err)
	}
	if r.re == nil {
		t.Fatal("CompileAll left a pattern uncompiled")
	}
}

func TestConcurrentFirstUse(t *testing.T) {
	undeclareAfter(t)
	r := New(`^(\w+)=(\d+)$`)
	var wg sync.WaitGroup
	got := make([][]string, 8)
	for i := range got {
		wg.Go(func() { got[i] = r.FindStringSubmatch(fmt.Sprintf("k%d=%d", i, i)) })
	}
	wg.Wait()
	for i, m := range got {
		if len(m) != 3 || m[1] != fmt.Sprintf("k%d", i) || m[2] != fmt.Sprint(i) {
			t.Fatalf("goroutine %d matched %q", i, m)
		}
	}
}
