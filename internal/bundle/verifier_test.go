package bundle

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/abbench/abbench/internal/digest"
)

// TestScenarioCacheGivesEachBundleItsOwnPath: a scenario parsed once
// comes back to each bundle with that bundle's file and directory (what
// templates and relative paths resolve against), never the first's; the
// same bytes with another prompts digest, or other bytes, are parsed on
// their own.
func TestScenarioCacheGivesEachBundleItsOwnPath(t *testing.T) {
	sc := scenarioCache{parsed: map[scenarioKey]parsedScenario{}}
	four := &digest.Digest{Algorithm: digest.TokensOrdered, Count: 4, Hex: strings.Repeat("a", 64)}
	five := &digest.Digest{Algorithm: digest.TokensOrdered, Count: 5, Hex: strings.Repeat("b", 64)}
	first, err := sc.load([]byte(scenarioYAML), filepath.Join("one", ScenarioFile), four)
	if err != nil {
		t.Fatal(err)
	}
	second, err := sc.load([]byte(scenarioYAML), filepath.Join("two", ScenarioFile), four)
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if second.s.File != filepath.Join("two", ScenarioFile) || second.s.Dir != filepath.Join(wd, "two") || first.s.Dir != filepath.Join(wd, "one") {
		t.Errorf("the second bundle's scenario is at %s in %s, the first's in %s", second.s.File, second.s.Dir, first.s.Dir)
	}
	if len(sc.parsed) != 1 || first.matched != second.matched || first.matched != first.s.MatchedDigest() {
		t.Errorf("%d parses, matched digests %s and %s", len(sc.parsed), first.matched, second.matched)
	}
	other, err := sc.load([]byte(scenarioYAML), filepath.Join("three", ScenarioFile), five)
	if err != nil {
		t.Fatal(err)
	}
	renamed, err := sc.load([]byte(strings.Replace(scenarioYAML, "name: t", "name: u", 1)), filepath.Join("four", ScenarioFile), four)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.parsed) != 3 || other.s.PromptsDigest != *five || renamed.s.Name != "u" || renamed.matched == first.matched {
		t.Errorf("%d parses; prompts %v, name %q", len(sc.parsed), other.s.PromptsDigest, renamed.s.Name)
	}
	if _, err := sc.load([]byte("name: [\n"), filepath.Join("five", ScenarioFile), four); err == nil || len(sc.parsed) != 3 {
		t.Errorf("a scenario that does not load: %v, %d parses held", err, len(sc.parsed))
	}
	for i := range maxScenarios {
		data := strings.Replace(scenarioYAML, "name: t", fmt.Sprintf("name: t%d", i), 1)
		if p, err := sc.load([]byte(data), filepath.Join("more", ScenarioFile), four); err != nil || p.s.Name != fmt.Sprintf("t%d", i) {
			t.Fatalf("scenario %d: %v", i, err)
		}
	}
	if len(sc.parsed) != maxScenarios {
		t.Errorf("%d parses held, want at most %d", len(sc.parsed), maxScenarios)
	}
}

// TestVerifierRefusesWhatVerifyRefuses: one Verifier, its scenario parsed
// by the first bundle, verifying copies of it on several goroutines,
// refuses the copies Verify refuses: a changed log, a scenario changed
// after signing, and one an insider with the trusted key changed and
// re-signed (its evidence no longer derives from it).
func TestVerifierRefusesWhatVerifyRefuses(t *testing.T) {
	signer, pub := newSigner(t)
	good := writeBundle(t, signer, 4)
	opts := VerifyOptions{AllowedSigners: trust(t, "ci@x "+pub), Identity: "ci@x"}
	v := NewVerifier(opts)
	if _, err := v.Verify(good); err != nil {
		t.Fatal(err)
	}
	rename := func(dir string) {
		path := filepath.Join(dir, ScenarioFile)
		data, _ := os.ReadFile(path)
		os.WriteFile(path, []byte(strings.Replace(string(data), "name: t", "name: u", 1)), 0o644)
	}
	tampered := map[string]string{}
	for _, c := range []struct {
		want string
		edit func(dir string)
	}{
		{"ctx-1.log was changed", func(dir string) { flipByte(t, filepath.Join(dir, "ctx-1.log")) }},
		{ScenarioFile + " was changed", rename},
		{"does not match the evidence re-derived", func(dir string) { rename(dir); resign(t, dir, signer) }},
	} {
		dir := copyTree(t, good)
		c.edit(dir)
		tampered[dir] = c.want
	}
	dirs := []string{good, copyTree(t, good)}
	for dir := range tampered {
		dirs = append(dirs, dir, copyTree(t, good))
	}
	var wg sync.WaitGroup
	errs := make([]error, len(dirs))
	for i, dir := range dirs {
		wg.Go(func() { _, errs[i] = v.Verify(dir) })
	}
	wg.Wait()
	for i, dir := range dirs {
		want, refused := tampered[dir]
		switch err := errs[i]; {
		case refused && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want refused with %q", dir, err, want)
		case !refused && err != nil:
			t.Errorf("an intact copy: %v", err)
		}
	}
}
