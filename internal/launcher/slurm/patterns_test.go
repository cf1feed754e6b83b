package slurm

import (
	"testing"

	"github.com/abbench/abbench/internal/lazyregexp"
)

// The package's regular expressions compile when first used: a typo in
// one must fail here, not in a user's run that reaches it.
func TestPatternsCompile(t *testing.T) {
	if err := lazyregexp.CompileAll(); err != nil {
		t.Fatal(err)
	}
}
