package records

import (
	"encoding/json"
	"fmt"
)

// Goodput is the metric of the requests that met every SLO, per second of
// the run (vLLM's --goodput: request_goodput).
const Goodput = "goodput"

// SLO are the service-level objectives of one request, in ms; 0 is no
// objective. A request meets them when it succeeded and its TTFT, TPOT
// and end-to-end latency are each at most its objective.
type SLO struct {
	TTFT float64 `yaml:"ttft" json:"ttft_ms,omitempty"`
	TPOT float64 `yaml:"tpot" json:"tpot_ms,omitempty"`
	E2E  float64 `yaml:"e2e" json:"e2e_ms,omitempty"`
}

// Set says whether any objective is declared.
func (s *SLO) Set() bool { return s != nil && (s.TTFT > 0 || s.TPOT > 0 || s.E2E > 0) }

// perRequest are the per-request lists of vLLM's --save-detailed result
// (abbench's own client writes them too): TTFT and the gaps between
// later tokens in seconds, output tokens and the error of each request.
type perRequest struct {
	TTFTs      []float64   `json:"ttfts"`
	ITLs       [][]float64 `json:"itls"`
	OutputLens []int       `json:"output_lens"`
	Errors     []string    `json:"errors"`
}

// goodput computes the goodput of a serving result from its per-request
// lists, as vLLM does: a request's end-to-end latency is its TTFT plus
// its gaps, its TPOT its gaps over its output tokens after the first.
// Without the lists (a result saved without --save-detailed) it is left
// out; lists of other lengths are a problem. No request meeting the SLOs
// leaves it out too: a rate of 0 cannot be compared on the log scale.
func (r *Record) goodput(obj map[string]any, slo *SLO) {
	if !slo.Set() {
		return
	}
	for _, key := range []string{"ttfts", "itls", "output_lens", "errors"} {
		if _, ok := obj[key].([]any); !ok {
			return
		}
	}
	duration, ok := number(obj["duration"])
	if !ok || duration <= 0 {
		return
	}
	var pr perRequest
	raw, _ := json.Marshal(map[string]any{"ttfts": obj["ttfts"], "itls": obj["itls"], "output_lens": obj["output_lens"], "errors": obj["errors"]})
	if err := json.Unmarshal(raw, &pr); err != nil {
		r.problem("the per-request lists (ttfts, itls, output_lens, errors) do not parse: %v", err)
		return
	}
	n := len(pr.TTFTs)
	if len(pr.ITLs) != n || len(pr.OutputLens) != n || len(pr.Errors) != n {
		r.problem("the per-request lists differ in length (ttfts %d, itls %d, output_lens %d, errors %d): no goodput can be read", n, len(pr.ITLs), len(pr.OutputLens), len(pr.Errors))
		return
	}
	good := 0
	for i := range n {
		if pr.Errors[i] == "" && pr.OutputLens[i] > 0 && slo.met(pr.TTFTs[i], pr.ITLs[i], pr.OutputLens[i]) {
			good++
		}
	}
	r.optionalMetric(Goodput, float64(good)/duration)
}

// met says whether one request met every objective.
func (s *SLO) met(ttftS float64, itlsS []float64, outputTokens int) bool {
	var gaps float64
	for _, g := range itlsS {
		gaps += g
	}
	ttft, e2e := 1000*ttftS, 1000*(ttftS+gaps)
	tpot := 0.0
	if outputTokens > 1 {
		tpot = 1000 * gaps / float64(outputTokens-1)
	}
	return (s.TTFT <= 0 || ttft <= s.TTFT) && (s.TPOT <= 0 || tpot <= s.TPOT) && (s.E2E <= 0 || e2e <= s.E2E)
}

// String says the objectives as a scenario declares them.
func (s SLO) String() string {
	out := ""
	for _, o := range []struct {
		name string
		v    float64
	}{{"ttft", s.TTFT}, {"tpot", s.TPOT}, {"e2e", s.E2E}} {
		if o.v > 0 {
			if out != "" {
				out += ", "
			}
			out += fmt.Sprintf("%s <= %g ms", o.name, o.v)
		}
	}
	return out
}
