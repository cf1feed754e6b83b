package loadgen

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/digest"
)

// Synthetic is a generated workload of fixed input and output lengths, as
// vLLM's random dataset makes one: Prompts prompts of InputLen token IDs
// drawn uniformly from [VocabMin, VocabMax), each request asking for
// OutputLen tokens. There is no tokenizer here: the prompts are token IDs
// sent to /v1/completions as a list, so the server does not re-tokenize
// them and the input length is exact; the IDs must be valid in the
// served model's vocabulary (the default range suits every vocabulary of
// at least 32,000 tokens, and skips the low IDs where most put their
// special tokens). The same values (and abbench build) give the same
// prompts in every arm.
type Synthetic struct {
	Prompts   int    `yaml:"prompts" json:"prompts"`
	InputLen  int    `yaml:"input_len" json:"input_len"`
	OutputLen int    `yaml:"output_len" json:"output_len"`
	Seed      uint64 `yaml:"seed" json:"seed"`
	VocabMin  uint32 `yaml:"vocab_min" json:"vocab_min"`
	VocabMax  uint32 `yaml:"vocab_max" json:"vocab_max"`
}

// The default token ID range of a synthetic workload.
const (
	DefaultVocabMin = 1000
	DefaultVocabMax = 32000
)

// maxSyntheticTokens bounds a synthetic workload's token IDs in memory
// (4 bytes each, and again in each request's body).
const maxSyntheticTokens = 1 << 26

// WithDefaults fills the token ID range left out.
func (s Synthetic) WithDefaults() Synthetic {
	if s.VocabMin == 0 && s.VocabMax == 0 {
		s.VocabMin, s.VocabMax = DefaultVocabMin, DefaultVocabMax
	}
	return s
}

// Check says what is wrong with s, every problem.
func (s Synthetic) Check() error {
	var errs []error
	if s.Prompts < 1 || s.InputLen < 1 || s.OutputLen < 0 {
		errs = append(errs, fmt.Errorf("synthetic prompts %d, input_len %d, output_len %d: prompts and input_len at least 1, output_len at least 0 (0: max_tokens not sent)", s.Prompts, s.InputLen, s.OutputLen))
	} else if int64(s.Prompts)*int64(s.InputLen) > maxSyntheticTokens {
		errs = append(errs, fmt.Errorf("synthetic prompts %d × input_len %d is more than %d token IDs", s.Prompts, s.InputLen, maxSyntheticTokens))
	}
	if s.VocabMin >= s.VocabMax {
		errs = append(errs, fmt.Errorf("synthetic vocab_min %d, vocab_max %d: token IDs are drawn from [vocab_min, vocab_max), give vocab_min below vocab_max", s.VocabMin, s.VocabMax))
	}
	return errors.Join(errs...)
}

// String is s as ParseSynthetic reads it.
func (s Synthetic) String() string {
	return fmt.Sprintf("prompts=%d,input_len=%d,output_len=%d,seed=%d,vocab_min=%d,vocab_max=%d", s.Prompts, s.InputLen, s.OutputLen, s.Seed, s.VocabMin, s.VocabMax)
}

// ParseSynthetic reads KEY=VALUE pairs separated by commas (prompts,
// input_len, output_len, seed, vocab_min, vocab_max), the defaults filled
// and the values checked.
func ParseSynthetic(spec string) (Synthetic, error) {
	var s Synthetic
	fields := map[string]func(string) error{
		"prompts":    intField(&s.Prompts),
		"input_len":  intField(&s.InputLen),
		"output_len": intField(&s.OutputLen),
		"seed":       func(v string) (err error) { s.Seed, err = strconv.ParseUint(v, 10, 64); return err },
		"vocab_min":  uint32Field(&s.VocabMin),
		"vocab_max":  uint32Field(&s.VocabMax),
	}
	seen := map[string]bool{}
	for _, kv := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		set, known := fields[k]
		switch {
		case !ok || !known:
			return Synthetic{}, fmt.Errorf("synthetic %q: %q is not KEY=VALUE of prompts, input_len, output_len, seed, vocab_min, vocab_max", spec, kv)
		case seen[k]:
			return Synthetic{}, fmt.Errorf("synthetic %q: %s given twice", spec, k)
		}
		seen[k] = true
		if err := set(v); err != nil {
			return Synthetic{}, fmt.Errorf("synthetic %q: %s: %w", spec, k, err)
		}
	}
	// A length or seed left out would be a default nobody chose: the
	// server then picks every answer's length (no max_tokens is sent),
	// and each run's prompts are seed 0's.
	var missing []string
	for _, k := range []string{"prompts", "input_len", "output_len", "seed"} {
		if !seen[k] {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return Synthetic{}, fmt.Errorf("synthetic %q: give %s too (prompts=N,input_len=N,output_len=N,seed=N; output_len=0 lets the server choose each answer's length)", spec, strings.Join(missing, " and "))
	}
	s = s.WithDefaults()
	return s, s.Check()
}

func intField(p *int) func(string) error {
	return func(v string) (err error) { *p, err = strconv.Atoi(v); return err }
}

func uint32Field(p *uint32) func(string) error {
	return func(v string) error {
		n, err := strconv.ParseUint(v, 10, 32)
		*p = uint32(n)
		return err
	}
}

// Items are the synthetic workload's requests: the token IDs of prompt
// i are the i-th InputLen draws of a PCG seeded with Seed, in order.
func (s Synthetic) Items() []Item {
	rng := rand.New(rand.NewPCG(s.Seed, 0x5eed5eed5eed5eed))
	span := s.VocabMax - s.VocabMin
	out := make([]Item, s.Prompts)
	tokens := make([]uint32, s.InputLen)
	for i := range out {
		for j := range tokens {
			tokens[j] = s.VocabMin + rng.Uint32N(span)
		}
		out[i] = Item{Prompt: digest.Prompt{Body: digest.AppendTokens(nil, tokens), Unit: digest.UnitTokens, Line: i + 1}, MaxTokens: s.OutputLen}
	}
	return out
}
