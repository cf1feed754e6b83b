package bundle

import (
	"crypto/sha256"
	"path/filepath"
	"sync"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/scenarios"
)

// Verifier verifies many bundles with one VerifyOptions, as Verify does
// each, but parses each distinct bundled scenario once: a campaign's runs
// bundle the same scenario, and parsing it was a fifth of verifying a
// bundle. It is safe for concurrent use.
type Verifier struct {
	opts      VerifyOptions
	scenarios scenarioCache
}

// NewVerifier is a Verifier that checks every bundle against opts.
func NewVerifier(opts VerifyOptions) *Verifier {
	return &Verifier{opts: opts, scenarios: scenarioCache{parsed: map[scenarioKey]parsedScenario{}}}
}

// Verify checks the bundle directory dir as the package's Verify does.
func (v *Verifier) Verify(dir string) (*Verified, error) {
	return verifyDir(dir, v.opts, &v.scenarios)
}

// scenarioCache holds the scenarios parsed so far, each under the SHA-256
// of the exact bytes parsed and the prompts digest it was parsed with
// (what ParseWithPrompts reads besides its path): a scenario of other
// bytes, one changed by a single byte included, is another key, parsed
// on its own. Only scenarios that loaded are held; one that does not is
// parsed again by each bundle, so each bundle's error names its own file.
type scenarioCache struct {
	mu     sync.Mutex
	parsed map[scenarioKey]parsedScenario
}

// maxScenarios bounds the scenarios a cache holds: a comparison's runs
// share a few (one a campaign), and runs whose scenarios all differ must
// not keep every parse alive with them.
const maxScenarios = 64

type scenarioKey struct {
	content    [sha256.Size]byte
	prompts    digest.Digest
	hasPrompts bool
}

// parsedScenario is a scenario as parsed once and its matched digest,
// which every re-derivation of its runs' evidence asks for.
type parsedScenario struct {
	s       *scenarios.Scenario
	matched string
	// rules are its evidence rules, compiled once for every bundle of it
	// (and of a sweep's cell of it); shared, only read.
	rules *evidence.Rules
}

// load is the scenario data holds, read as the file at path with the
// prompts digest prompts. The scenario comes back as a copy of the one
// parsed first with this bundle's path: its File and Dir (what templates
// and relative paths resolve against) are this bundle's, never another's;
// the rest is shared and only read. Dir is absolute, as templates give it:
// made so once here, not by each of the dozens of templates a
// re-derivation expands (each asked for the working directory). Its
// Warnings are left out: they are about the machine the scenario was
// parsed on (a build binary there, say), not a bundle.
func (sc *scenarioCache) load(data []byte, path string, prompts *digest.Digest) (parsedScenario, error) {
	key := scenarioKey{content: sha256.Sum256(data), hasPrompts: prompts != nil}
	if prompts != nil {
		key.prompts = *prompts
	}
	sc.mu.Lock()
	p, ok := sc.parsed[key]
	sc.mu.Unlock()
	if !ok {
		s, err := scenarios.ParseWithPrompts(data, path, prompts)
		if err != nil {
			return parsedScenario{}, err
		}
		p = parsedScenario{s: s, matched: s.MatchedDigest(), rules: evidence.NewRules()}
		sc.mu.Lock()
		if len(sc.parsed) < maxScenarios {
			sc.parsed[key] = p
		}
		sc.mu.Unlock()
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return parsedScenario{}, err
	}
	own := *p.s
	own.File, own.Dir, own.Warnings = path, dir, nil
	return parsedScenario{s: &own, matched: p.matched, rules: p.rules}, nil
}
