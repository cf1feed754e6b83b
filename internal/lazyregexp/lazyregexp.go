// Package lazyregexp holds regular expressions a package declares at its
// top level but compiles when first used: every abbench process (a
// controller, a guard, each rank's wrapper) links the parsers of every
// record format and used to compile all their expressions before main ran,
// though a command reads one format at most.
//
// A pattern that does not compile panics at its first use, with
// regexp.MustCompile's message; CompileAll compiles every pattern declared
// so far, so a package's tests catch a typo without reaching the code that
// uses it.
package lazyregexp

import (
	"fmt"
	"regexp"
	"runtime"
	"strconv"
	"sync"
)

// Regexp is a regular expression compiled on its first use; its methods
// are regexp.Regexp's.
type Regexp struct {
	pattern string
	pc      uintptr // where New was called, for CompileAll's error
	once    sync.Once
	re      *regexp.Regexp
	err     error
}

var (
	declaredMu sync.Mutex
	declared   []*Regexp
)

// New declares the regular expression pattern, to be compiled on first use.
func New(pattern string) *Regexp {
	r := &Regexp{pattern: pattern}
	var pcs [1]uintptr
	if runtime.Callers(2, pcs[:]) == 1 {
		r.pc = pcs[0]
	}
	declaredMu.Lock()
	declared = append(declared, r)
	declaredMu.Unlock()
	return r
}

// compile compiles the pattern once, keeping its error for every caller.
func (r *Regexp) compile() (*regexp.Regexp, error) {
	r.once.Do(func() { r.re, r.err = regexp.Compile(r.pattern) })
	return r.re, r.err
}

// Regexp is the compiled expression; a pattern that does not compile
// panics here, with regexp.MustCompile's message.
func (r *Regexp) Regexp() *regexp.Regexp {
	re, err := r.compile()
	if err != nil {
		regexp.MustCompile(r.pattern)
	}
	return re
}

// CompileAll compiles every pattern declared so far and returns the first
// that fails, naming the file and line that declared it.
func CompileAll() error {
	declaredMu.Lock()
	all := append([]*Regexp(nil), declared...)
	declaredMu.Unlock()
	for _, r := range all {
		if _, err := r.compile(); err != nil {
			return fmt.Errorf("%s: regular expression %s does not compile: %v", r.declaredAt(), strconv.Quote(r.pattern), err)
		}
	}
	return nil
}

// declaredAt is the file and line of the call to New that declared r.
func (r *Regexp) declaredAt() string {
	if r.pc == 0 {
		return "unknown place"
	}
	frame, _ := runtime.CallersFrames([]uintptr{r.pc}).Next()
	return fmt.Sprintf("%s:%d", frame.File, frame.Line)
}
