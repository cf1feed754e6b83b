// Package loadgen is abbench's own load client for OpenAI-compatible
// servers (vLLM, SGLang, trtllm-serve, TGI, llama.cpp, Ollama, disaggsim):
// it sends a workload (a prompts file's prompts, a ShareGPT or
// conversation dataset's requests, or a seeded synthetic workload) to
// /v1/completions or /v1/chat/completions, streaming or not, and says
// exactly what it sent.
//
// What it guarantees:
//   - every source gives a sequence of Items, each the content its digest
//     record is of (a conversation request's messages and output length,
//     package digest's Request.Body), so what it hashes is what it sends;
//   - the prompts it sends are the dataset's, parsed by package digest,
//     and it hashes each request's prompt content as it dispatches it: the
//     digest of what was sent, in order of sending (and, for tokens, as a
//     multiset), with per-prompt records that abbench digest --explain
//     compares with a server's activation records;
//   - the arrival schedule is a function of the workload alone: a closed
//     loop at a concurrency, or a seeded Poisson (gamma, with burstiness)
//     process whose seed is part of the matched workload; requests are
//     dispatched one at a time, so the order of sending never depends on
//     timing; a ramp maps the same seeded gaps through a rising rate, or
//     raises the requests allowed in flight; a duration run cycles through
//     the items until its time passes; warm-up requests go first, apart;
//   - every request scheduled is accounted for: it succeeded, or it failed
//     with its error named (an HTTP status, a deadline, a broken stream, a
//     cancellation), or it was never sent because the run ended, which is a
//     failure too; nothing is dropped;
//   - everything is bounded: the connection and each request have
//     deadlines, the run has one, requests in flight never exceed the
//     concurrency, and cancelling the context ends every request at once;
//     a response head, a stream line, a whole body and a stream's content
//     events have caps, past which the request fails (oversized,
//     over-max-tokens);
//   - it believes no more than came, and sends nothing twice: a usage is
//     held to max_tokens and to the events streamed (over-max-tokens,
//     usage-mismatch); a request written is never written again, one that
//     got no answer is connection-closed; bytes after a complete response
//     fail the request they follow (stray-bytes), never taken for the
//     next one's answer; secrets (the API key, Options.Secrets) are
//     redacted from every error;
//   - what a run holds does not grow with its requests: each outcome is
//     counted as it ends, in order of sending, and given up (its block
//     of outcomes reused): its line of the per-request file and its
//     values in the record's per-request lists are spooled to a removed
//     file beside the record, its latencies kept exactly up to 100,000
//     values and then in a log-bucket sketch whose percentiles are
//     within SketchRelativeError (0.5%) of the values of their ranks;
//     the first KeptOutcomes outcomes and the first failure are kept;
//     the prompts sent are the items' cycle (the k-th request's is item
//     k mod n), so the sent digests and records files come from the
//     items' records, not one record a request;
//   - the result is written in the shape of vLLM's benchmark_serving result
//     (package records reads it as format vllm), beside a JSON Lines file
//     of per-request records.
//
// Where each job is: options.go the options and their checks; items.go
// the workload's items and datasets; synthetic.go the synthetic workload;
// workload.go the checks, ramp and record of the workload options;
// schedule.go the arrival times; phase.go the dispatcher and workers of
// the warm-up and measured phases; loop_linux.go and loop_dial_linux.go
// the event loop that sends a closed-loop phase over plain HTTP/1.1 in
// their place on Linux (one goroutine, its own epoll set, as wrk does),
// loop_parse.go its answers taken whole by the workers' reader from the
// bytes in memory; request.go a request's body and its response;
// conn.go a worker's own connection (HTTP/1.1, kept alive), peek_*.go
// the look at an idle one before it is written on again; rawwrite.go and
// write_unix.go a request written and its answer waited for before it is
// read, and a plain socket read; sysio_*.go those reads and writes as
// raw system calls where they can be; head.go a
// response's head and the framing of its body;
// stream.go the server-sent events of a streamed response; chunkjson.go
// the decoding of a response or an event, jsonstr.go its strings,
// text.go its texts read in place and their words counted; run.go the
// run and its result; tally.go what the outcomes add up to as they end;
// spool.go where their lines wait for the files; latency.go a latency's
// values, exact then sketched; result.go the summary in vLLM's shape;
// stats.go the percentiles; encode.go and write.go the files;
// progress.go the progress lines.
package loadgen
