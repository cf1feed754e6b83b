// Command genlogs writes a synthetic arm run for the evidence benchmark: a
// scenario, a status.json, and RANKS cumulative CTX logs, each PREFIX bytes
// of an earlier attempt followed by SCOPE bytes of this run's profiling and
// measured lifecycles among ordinary serving log lines. It also writes
// scope-0.log, rank 0's scoped bytes alone, for ripgrep.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

func main() {
	dir := flag.String("dir", "", "output directory (required)")
	ranks := flag.Int("ranks", 4, "CTX ranks")
	prefix := flag.Int64("prefix", 0, "bytes of an earlier attempt before the scope")
	scope := flag.Int64("scope", 64<<20, "bytes of the scoped run")
	sparse := flag.Bool("sparse", false, "make the prefix a hole (fast to create; abbench never reads it)")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "usage: genlogs -dir DIR [-ranks N] [-prefix BYTES] [-scope BYTES]")
		os.Exit(2)
	}
	run := filepath.Join(*dir, "run")
	must(os.MkdirAll(run, 0o755))
	must(os.WriteFile(filepath.Join(*dir, "prompts.jsonl"), []byte("[1]\n"), 0o644))
	must(os.WriteFile(filepath.Join(*dir, "s.yaml"), []byte(scenario(*ranks)), 0o644))
	var rs []rundir.RankStatus
	for r := range *ranks {
		name := fmt.Sprintf("ctx-%d.log", r)
		writeLog(filepath.Join(run, name), r, *prefix, *scope, *sparse)
		rs = append(rs, rundir.RankStatus{Role: "ctx", Rank: r, Log: name, Offset: *prefix})
	}
	sc, err := scenarios.Load(filepath.Join(*dir, "s.yaml"))
	must(err)
	must(rundir.WriteStatus(run, &rundir.Status{Scenario: "bench", MatchedDigest: sc.MatchedDigest(), Arm: "async", Token: "bench", Dir: run, State: rundir.StateSucceeded, Ranks: rs}))
	// rank 0's scope alone, for ripgrep
	src, err := os.Open(filepath.Join(run, "ctx-0.log"))
	must(err)
	_, err = src.Seek(*prefix, io.SeekStart)
	must(err)
	dst, err := os.Create(filepath.Join(*dir, "scope-0.log"))
	must(err)
	_, err = io.Copy(dst, src)
	must(err)
	must(dst.Close())
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "genlogs:", err)
		os.Exit(1)
	}
}

func scenario(ranks int) string {
	return fmt.Sprintf(`name: bench
arms:
  async: {env: {TERMINAL: "1"}}
  blocking: {env: {TERMINAL: "0"}}
baseline: blocking
workload: {prompts: prompts.jsonl}
roles:
  - {name: ctx, ranks: %d, arm_env: true, command: [x]}
evidence:
  profiling: true
  mode: {role: ctx, pattern: 'mode rank=(?P<rank>\d+) phase=\S+ terminal=(?P<TERMINAL>\d)'}
  lifecycle_end: {role: ctx, pattern: 'shutdown_summary rank=(?P<rank>\d+)'}
  activation: {role: ctx, pattern: 'activation_sequence rank=(?P<rank>\d+) count=(?P<count>\d+) digest=(?P<digest>[0-9a-f]+) algorithm=(?P<algorithm>\S+)'}
  counters:
    commits: {role: ctx, pattern: 'shutdown_summary rank=(?P<rank>\d+) .*terminal_commits=(?P<n>\d+)', value: n}
    votes: {role: ctx, pattern: 'terminal_vote rank=(?P<rank>\d+) id=\d+'}
`, ranks)
}

// writeLog writes an earlier attempt's lines up to prefix bytes, then this
// run's two lifecycles spread over scope bytes.
func writeLog(path string, rank int, prefix, scope int64, sparse bool) {
	f, err := os.Create(path)
	must(err)
	w := bufio.NewWriterSize(f, 1<<20)
	var n int64
	line := func(format string, args ...any) {
		k, _ := fmt.Fprintf(w, format+"\n", args...)
		n += int64(k)
	}
	step := 0
	noise := func(until int64) {
		for n < until {
			step++
			line("2026-11-30T07:00:00.%06dZ INFO scheduler step=%d running=32 waiting=%d kv_cache_usage=0.%02d prefill_tokens=%d decode_tokens=%d", step%1000000, step, step%17, step%100, step%4096, step%8192)
			if step%50 == 0 {
				line("2026-11-30T07:00:00.%06dZ DEBUG terminal_vote rank=%d id=%d", step%1000000, rank, step)
			}
		}
	}
	if sparse {
		must(f.Truncate(prefix))
		_, err = f.Seek(prefix, io.SeekStart)
		must(err)
		n = prefix
	}
	noise(prefix)
	must(w.Flush())
	if n > prefix { // the prefix ends exactly at a line boundary of its own
		must(f.Truncate(prefix))
		_, err = f.Seek(prefix, io.SeekStart)
		must(err)
		w.Reset(f)
	}
	n = prefix
	line("mode rank=%d phase=profiling terminal=1 peer_ready=1", rank)
	noise(prefix + scope/10)
	line("shutdown_summary rank=%d phase=profiling ready_rounds=3 terminal_votes=0 terminal_commits=0", rank)
	line("mode rank=%d phase=runtime terminal=1 peer_ready=1", rank)
	noise(prefix + scope - 400)
	line("activation_sequence rank=%d count=256 digest=%064x algorithm=sha256-length-prefixed-prompt-sha256-v1", rank, 42)
	line("shutdown_summary rank=%d phase=runtime ready_rounds=32 terminal_votes=256 terminal_commits=256", rank)
	must(w.Flush())
	must(f.Close())
}
