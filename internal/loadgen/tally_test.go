package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestSketchWithinItsError: past exactLatencies values a latency's
// percentiles are the sketch's, each within SketchRelativeError of
// numpy's percentile of every value, and its mean and standard
// deviation are of every value.
func TestSketchWithinItsError(t *testing.T) {
	defer func(e int) { exactLatencies = e }(exactLatencies)
	exactLatencies = 1000
	rng := rand.New(rand.NewPCG(1, 2))
	var l latency
	all := make([]float64, 0, 50_000)
	for range cap(all) {
		v := math.Exp(rng.NormFloat64()*1.5) * 20 // milliseconds, over four decades
		if len(all)%1000 == 0 {
			v = 0 // a gap of no time: no bucket holds it
		}
		l.add(v)
		all = append(all, v)
	}
	if !l.sketched() {
		t.Fatal("50,000 values past a bound of 1,000 are not sketched")
	}
	got, want := l.dist(), distOf(all)
	near := func(name string, g, w, rel float64) {
		if math.Abs(g-w) > rel*math.Abs(w) {
			t.Errorf("%s: %g, every value's %g (off by %.3g%%, at most %g%%)", name, g, w, 100*math.Abs(g-w)/w, 100*rel)
		}
	}
	near("median", got.Median, want.Median, SketchRelativeError)
	for i, q := range Percentiles {
		near(fmt.Sprintf("p%g", q), got.P[i], want.P[i], SketchRelativeError)
	}
	near("mean", got.Mean, want.Mean, 1e-9)
	near("std", got.Std, want.Std, 1e-9)
}

// TestRunPastItsKeptOutcomes: a run of more requests than it keeps
// outcomes of writes every request's line and every value of the
// record's lists, and names its first failure, which came after the
// outcomes kept; past the bound of exact latencies its record says the
// percentiles are within the sketch's error, and records reads them.
func TestRunPastItsKeptOutcomes(t *testing.T) {
	defer func(k, e int) { KeptOutcomes, exactLatencies = k, e }(KeptOutcomes, exactLatencies)
	KeptOutcomes, exactLatencies = 10, 100
	url := replyServer(t)
	items := benchPrompts(t)[:30]
	o := Options{URL: url, Model: "bench", MaxTokens: 1, Requests: 30, Rounds: 10, Concurrency: 8, SpoolDir: t.TempDir()}
	res, err := RunItems(context.Background(), items, o)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if len(res.Outcomes) != 10 || res.FirstFailure() != nil {
		t.Fatalf("%d outcomes kept (want 10), first failure %+v", len(res.Outcomes), res.FirstFailure())
	}
	if left, _ := os.ReadDir(o.SpoolDir); len(left) != 0 {
		t.Errorf("the spools left %d files behind", len(left))
	}
	dir := t.TempDir()
	if err := res.Write(Files{PerRequest: filepath.Join(dir, "r.jsonl")}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "r.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := bytes.Split(bytes.TrimSpace(data), []byte("\n")); len(lines) != 300 || !bytes.HasPrefix(lines[299], []byte(`{"index":299,"prompt":29,`)) {
		t.Errorf("%d lines, the last %s", len(lines), lines[len(lines)-1])
	}
	rec := parseRecord(t, res, 300)
	if rec.Completed != 300 || !rec.Valid {
		t.Errorf("the record: %d completed, valid %v", rec.Completed, rec.Valid)
	}
	m, err := res.Record(res.Start)
	if err != nil {
		t.Fatal(err)
	}
	if ttfts := m["ttfts"].([]float64); len(ttfts) != 300 {
		t.Errorf("%d ttfts, want 300", len(ttfts))
	}
	// 300 TTFTs past a bound of 100: the percentiles are the sketch's,
	// and the record says within what.
	if m["percentiles_relative_error"] != SketchRelativeError || !res.Summarize().Sketched {
		t.Errorf("percentiles_relative_error %v: the record does not say its percentiles are sketched", m["percentiles_relative_error"])
	}
	if v, ok := rec.Metrics["p99_ttft_ms"]; !ok || v <= 0 {
		t.Errorf("p99_ttft_ms of the sketched record: %v %v", v, ok)
	}
	// A failure past the kept outcomes is still named.
	res.measured.add(&Outcome{Index: 300, Kind: KindNotSent, Error: "not sent: stopped"})
	if f := res.FirstFailure(); f == nil || f.Index != 300 {
		t.Errorf("the first failure: %+v, want request 300", f)
	}
}

// TestPerRequestStreamed: with Options.PerRequest the lines go to that
// file as the requests end, and it is put in place whole by Write: until
// then what was there stays, and a result closed unwritten leaves it so.
func TestPerRequestStreamed(t *testing.T) {
	url := replyServer(t)
	items := benchPrompts(t)[:16]
	path := filepath.Join(t.TempDir(), "r.jsonl")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func() *Result {
		res, err := RunItems(context.Background(), items, Options{URL: url, Model: "bench", MaxTokens: 1, Requests: 16, Rounds: 4, Concurrency: 4, PerRequest: path})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	read := func() []byte {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	run().Close()
	if got := read(); string(got) != "old\n" {
		t.Fatalf("a run closed unwritten changed the file: %q", got)
	}
	res := run()
	defer res.Close()
	if got := read(); string(got) != "old\n" {
		t.Fatalf("the file changed before Write: %q", got)
	}
	if err := res.Write(Files{PerRequest: path}); err != nil {
		t.Fatal(err)
	}
	if lines := bytes.Split(bytes.TrimSpace(read()), []byte("\n")); len(lines) != 64 || !bytes.HasPrefix(lines[63], []byte(`{"index":63,`)) {
		t.Errorf("%d lines, the last %s", len(lines), lines[len(lines)-1])
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	// Told no per-request file is wanted, a run makes no lines: asked for
	// them after all, Write says so, and the record is whole.
	none, err := RunItems(context.Background(), items, Options{URL: url, Model: "bench", MaxTokens: 1, Requests: 16, Concurrency: 4, NoPerRequest: true})
	if err != nil {
		t.Fatal(err)
	}
	defer none.Close()
	if err := none.Write(Files{PerRequest: path}); !errors.Is(err, errNoLines) {
		t.Errorf("a per-request file of a run told none is wanted: %v", err)
	}
	if rec := parseRecord(t, none, 16); rec.Completed != 16 {
		t.Errorf("the record of a run without lines: %d completed", rec.Completed)
	}
}

// TestReusedOutcomeBlockWaitsForItsOutcomes: a block of outcomes freed
// once all were counted is handed out again with every ended flag
// lowered, so an outcome on it is counted only once it has ended, in
// order of sending.
func TestReusedOutcomeBlockWaitsForItsOutcomes(t *testing.T) {
	p := &phase{tally: newTally(nil)}
	for range outcomeBlockSize {
		out, done := p.next()
		*out = Outcome{Sent: true}
		done.Store(true)
	}
	p.count()
	if p.counted != outcomeBlockSize || len(p.free) != 1 {
		t.Fatalf("counted %d with %d blocks free, want %d and 1", p.counted, len(p.free), outcomeBlockSize)
	}
	first, firstDone := p.next()
	second, secondDone := p.next()
	*first, *second = Outcome{Index: 1}, Outcome{Index: 2}
	secondDone.Store(true)
	p.count()
	if p.counted != outcomeBlockSize || len(p.free) != 0 {
		t.Fatalf("counted %d (free blocks %d): an outcome not ended was counted", p.counted, len(p.free))
	}
	firstDone.Store(true)
	p.count()
	if p.counted != outcomeBlockSize+2 {
		t.Fatalf("counted %d, want %d", p.counted, outcomeBlockSize+2)
	}
}
