// Command disaggsim is a simulated disaggregated LLM serving system: CTX
// pipeline ranks that agree on which requests to activate and on when each
// request is terminal, GEN ranks, a frontend and a benchmark client, talking
// over loopback TCP. It is abbench's embedded default workload and a black
// box to abbench, which only starts it, sets its environment and reads its
// logs and throughput record. docs/disaggsim.md documents its flags,
// environment, log lines and fault knobs.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/abbench/abbench/internal/digest"
)

const usage = `usage:
  disaggsim ctx --rank R --ranks N --gen-ranks M --coord DIR [--records FILE] [--algorithm ID]
  disaggsim gen --rank R --coord DIR
  disaggsim frontend --coord DIR --ctx-ranks N [--http-port PORT [--model NAME] [--requests N]]
  disaggsim serve --listen ADDR [--model NAME]
  disaggsim client --coord DIR --prompts FILE --out FILE [--requests N] [--concurrency C] [--rounds R]

Environment: DISAGGSIM_TERMINAL (1 async, 0 blocking), DISAGGSIM_PEER_READY (1/0),
DISAGGSIM_LINK_DELAY, DISAGGSIM_JITTER, DISAGGSIM_SEED, DISAGGSIM_CAPACITY,
DISAGGSIM_GEN_RATE, DISAGGSIM_KV_TIMEOUT, DISAGGSIM_VOTE_TIMEOUT, DISAGGSIM_FAULTS.
See docs/disaggsim.md.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	role := os.Args[1]
	if role == "-h" || role == "--help" || role == "help" {
		fmt.Print(usage) // asked for: the answer, on standard output, exit 0
		return
	}
	fs := flag.NewFlagSet("disaggsim "+role, flag.ContinueOnError)
	rank := fs.Int("rank", 0, "rank within the role")
	ranks := fs.Int("ranks", 1, "CTX pipeline ranks")
	genRanks := fs.Int("gen-ranks", 2, "GEN ranks")
	ctxRanks := fs.Int("ctx-ranks", 4, "CTX ranks (frontend)")
	coord := fs.String("coord", "", "coordination directory (addresses are published here)")
	prompts := fs.String("prompts", "", "prompts file (client)")
	out := fs.String("out", "", "throughput record to write (client)")
	requests := fs.Int("requests", 0, "requests per round (client; default every prompt); of the workload, for faults that act half-way (frontend, with --http-port)")
	concurrency := fs.Int("concurrency", 1, "requests in flight (client)")
	rounds := fs.Int("rounds", 1, "rounds (client)")
	recordStyle := fs.String("record-style", "vllm", "client record: vllm (vLLM's benchmark_serving result, with failed and the flag valid) or trtllm (TensorRT-LLM's copy of that script: neither)")
	timeout := fs.Duration("timeout", 5*time.Minute, "give up after this long (client)")
	records := fs.String("records", "", "write the activation sequence's per-prompt digest records here at shutdown (ctx)")
	algorithm := fs.String("algorithm", string(digest.TokensOrdered), "pinned digest algorithm of the activation sequence (ctx): the multiset one for a server of concurrent HTTP requests, whose order is theirs")
	httpPort := fs.String("http-port", "", "serve the OpenAI API (/v1/completions, /v1/chat/completions) on 127.0.0.1:PORT (frontend)")
	model := fs.String("model", "disaggsim", "the model the OpenAI API serves (frontend)")
	listen := fs.String("listen", "", "serve the OpenAI API on this address, one process with no ranks behind it (serve)")
	if err := fs.Parse(os.Args[2:]); err != nil {
		os.Exit(2)
	}
	fail := func(err error, code int) {
		fmt.Fprintf(os.Stderr, "disaggsim %s: %v\n", role, err)
		os.Exit(code)
	}
	cfg, err := loadConfig()
	if err != nil {
		fail(err, 2)
	}
	if role == "serve" {
		if *listen == "" {
			fail(fmt.Errorf("--listen is required"), 2)
		}
		if err := runServe(*listen, cfg, apiOptions{model: *model}, &logger{w: os.Stdout}); err != nil {
			fail(err, 1)
		}
		return
	}
	if *coord == "" {
		fail(fmt.Errorf("--coord is required"), 2)
	}
	log := &logger{w: os.Stdout}
	switch role {
	case "ctx":
		if *ranks < 1 || *genRanks < 1 {
			fail(fmt.Errorf("--ranks and --gen-ranks must be at least 1"), 2)
		}
		alg, aerr := digest.ParseAlgorithm(*algorithm)
		if aerr != nil {
			fail(fmt.Errorf("--algorithm: %w", aerr), 2)
		}
		err = runCtx(*rank, *ranks, *genRanks, *coord, *records, alg, cfg, log)
	case "gen":
		err = runGen(*rank, *coord, cfg, log)
	case "frontend":
		err = runFrontend(*coord, *ctxRanks, cfg, apiOptions{port: *httpPort, model: *model, total: *requests}, log)
	case "client":
		if *prompts == "" || *out == "" || *concurrency < 1 || *rounds < 1 {
			fail(fmt.Errorf("--prompts and --out are required; --concurrency and --rounds must be at least 1"), 2)
		}
		if *recordStyle != "vllm" && *recordStyle != "trtllm" {
			fail(fmt.Errorf("--record-style %q: choose vllm or trtllm", *recordStyle), 2)
		}
		err = runClient(clientOptions{coord: *coord, prompts: *prompts, out: *out, requests: *requests,
			rounds: *rounds, concurrency: *concurrency, timeout: *timeout, recordStyle: *recordStyle}, cfg, log)
	default:
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		fail(err, 1)
	}
}
