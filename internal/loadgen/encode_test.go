package loadgen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/digest"
)

// referenceLine is the per-request line as encoding/json writes it.
func referenceLine(o Outcome) ([]byte, error) {
	itl := make([]float64, len(o.ITLs))
	for i, d := range o.ITLs {
		itl[i] = ms(d)
	}
	return json.Marshal(struct {
		Index        int       `json:"index"`
		Prompt       int       `json:"prompt"`
		Line         int       `json:"line"`
		Sent         bool      `json:"sent"`
		SendS        float64   `json:"send_s"`
		TTFTms       float64   `json:"ttft_ms"`
		ITLms        []float64 `json:"itl_ms"`
		E2Ems        float64   `json:"e2e_ms"`
		PromptTokens int       `json:"prompt_tokens"`
		OutputTokens int       `json:"output_tokens"`
		TokensFrom   string    `json:"tokens_from,omitempty"`
		Status       int       `json:"status"`
		Failure      string    `json:"failure,omitempty"`
		Error        string    `json:"error,omitempty"`
	}{o.Index, o.Prompt, o.Line, o.Sent, o.Send.Seconds(), ms(o.TTFT), itl, ms(o.E2E),
		o.PromptTokens, o.OutputTokens, o.TokensFrom, o.Status, o.Kind, o.Error})
}

// referenceRecord is r.Record with its per-request arrays made of its
// Outcomes, as encoding/json would write them: not read back from the
// spools writeRecord copies.
func referenceRecord(t *testing.T, r *Result, now time.Time) map[string]any {
	t.Helper()
	rec, err := r.Record(now)
	if err != nil {
		t.Fatal(err)
	}
	n := len(r.Outcomes)
	inLens, outLens, ttfts, errs, itls := make([]int, n), make([]int, n), make([]float64, n), make([]string, n), make([][]float64, n)
	for i := range r.Outcomes {
		out := &r.Outcomes[i]
		inLens[i], ttfts[i], errs[i], itls[i] = out.PromptTokens, out.TTFT.Seconds(), out.Error, []float64{}
		if out.OK() {
			outLens[i] = out.OutputTokens
			for _, d := range out.ITLs {
				itls[i] = append(itls[i], d.Seconds())
			}
		}
	}
	rec["input_lens"], rec["output_lens"], rec["ttfts"], rec["itls"], rec["errors"] = inLens, outLens, ttfts, itls, errs
	return rec
}

// TestEncodingIsEncodingJSONs: the record and the per-request lines are
// byte for byte what encoding/json writes of them.
func TestEncodingIsEncodingJSONs(t *testing.T) {
	d := digest.Digest{Count: 3}
	res := &Result{Options: Options{Model: "m<&>", Endpoint: Chat, Concurrency: 4, Rate: 2.5, Burstiness: 1}.withDefaults(), Duration: 1234567 * time.Microsecond, Sent: &d,
		Outcomes: []Outcome{
			{Index: 0, Sent: true, Send: 1, TTFT: 3 * time.Millisecond, E2E: 25 * time.Second, ITLs: []time.Duration{1, 999, 1234567891, 7 * time.Hour}, PromptTokens: 5, OutputTokens: 5, TokensFrom: FromUsage, Status: 200},
			{Index: 1, Prompt: 1, Line: 9, Sent: true, Send: 1500 * time.Millisecond, TTFT: 17, Kind: KindHTTP, Error: "HTTP 401: <b>\"no\" & \\ \u2028 é \x01 \xff</b>", Status: 401},
			{Index: 2, Prompt: 2, Line: 12, Kind: KindNotSent, Error: "not sent: the client was stopped"},
			{Index: 3, Sent: true, TTFT: time.Duration(1 << 62), E2E: time.Duration(1 << 62), OutputTokens: 1, TokensFrom: FromCounted, Status: 200},
		}}
	for _, o := range res.Outcomes {
		want, err := referenceLine(o)
		if err != nil {
			t.Fatal(err)
		}
		if got := o.appendJSON(nil); !bytes.Equal(got, want) {
			t.Errorf("line\n got %s\nwant %s", got, want)
		}
	}
	now := time.Unix(1700000000, 0)
	for _, r := range []*Result{res, {Options: res.Options, Sent: &d}} {
		want, err := json.MarshalIndent(referenceRecord(t, r, now), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := r.writeRecord(bufio.NewWriter(&got), now); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), append(want, '\n')) {
			t.Errorf("record\n got %s\nwant %s", got.Bytes(), want)
		}
	}
}

// TestDecimalLatenciesAreAppendFloats: a latency written as its decimal
// is, byte for byte, what appendFloat writes of ms(d) and d.Seconds():
// at the edges of each way (a second, 1e15 ns, an exponent's 1e-6 s),
// at round numbers, and at random durations of every magnitude, each
// way round.
func TestDecimalLatenciesAreAppendFloats(t *testing.T) {
	ds := []time.Duration{0, 1, 9, 10, 999, 1000, 1001, 1e6 - 1, 1e6, 1e6 + 1, 1_500_000, time.Second - 1, time.Second, time.Second + 1,
		1e15 - 1, 1e15, 1e15 + 1, 1<<53 - 1, 1 << 53, math.MaxInt64, math.MinInt64 + 1, math.MinInt64}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		d := time.Duration(rng.Int64N(1 << uint(rng.IntN(63))))
		if rng.IntN(4) == 0 { // a round number: trailing zeros to trim
			unit := time.Duration(math.Pow10(rng.IntN(13)))
			d = d / unit * unit
		}
		ds = append(ds, d)
	}
	for _, d := range ds {
		for _, d := range []time.Duration{d, -d} {
			if got, want := string(appendMs(nil, d)), string(appendFloat(nil, ms(d))); got != want {
				t.Fatalf("appendMs(%d) = %s, want %s", d, got, want)
			}
			if got, want := string(appendSeconds(nil, d)), string(appendFloat(nil, d.Seconds())); got != want {
				t.Fatalf("appendSeconds(%d) = %s, want %s", d, got, want)
			}
		}
	}
}
