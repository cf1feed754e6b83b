// Package loadcmd is abbench load: the built-in OpenAI-compatible load client as a command.
package loadcmd

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/cmd/abbench/internal/help"
	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/loadgen"
)

type loadOptions struct {
	o             loadgen.Options
	endpoint      string
	prompts       string
	field         string
	multiTurn     bool
	synthetic     string
	files         loadgen.Files
	allowFailures bool
}

// New is the command.
func New() *cobra.Command {
	var opts loadOptions
	cmd := &cobra.Command{
		Use:     "load --url URL --model NAME (--prompts FILE | --synthetic SPEC) --out FILE",
		Short:   "Load an OpenAI-compatible server; record what it sent and got",
		Long:    help.Text("load"),
		Example: help.Text("load.examples"),
		Args:    cli.Args(cobra.NoArgs, "load takes flags only: abbench load --url URL --model NAME --prompts FILE --out FILE"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.o.Progress = cmd.ErrOrStderr()
			opts.o.APIKey = os.Getenv("OPENAI_API_KEY")
			// Whatever the environment holds under a secret's name (the
			// scenario's {{env}} values given as OPENAI_API_KEY, a
			// token) is never written, whoever quotes it back.
			opts.o.Secrets.AddEnv(os.Environ())
			return runLoad(cmd, opts)
		},
	}
	fs := cmd.Flags()
	o := &opts.o
	fs.StringVar(&o.URL, "url", "", "the server's base URL (http://HOST:PORT, or that with /v1)")
	fs.StringVar(&o.Model, "model", "", "the model field of every request")
	fs.StringVar(&opts.endpoint, "endpoint", string(loadgen.Completions), "completions (/v1/completions) or chat (/v1/chat/completions)")
	fs.BoolVar(&o.Stream, "stream", true, "stream responses (server-sent events): time to first token and inter-token latencies")
	fs.IntVar(&o.MaxTokens, "max-tokens", 0, "max_tokens of every request (0: not sent)")
	fs.BoolVar(&o.IgnoreEOS, "ignore-eos", false, "send ignore_eos: generate max-tokens whatever the model samples, so output lengths match across arms")
	fs.StringVar(&opts.prompts, "prompts", "", "dataset: a JSON Lines prompts file, ShareGPT JSON or conversation JSON Lines (docs/digest.md)")
	fs.BoolVar(&opts.multiTurn, "multi-turn", false, "a conversation dataset: send every user turn, with the dataset's turns before it as history (default the first)")
	fs.StringVar(&opts.synthetic, "synthetic", "", "in place of --prompts, random token IDs: prompts=N, input_len=N, output_len=N and seed=N, comma-separated (no spaces), and vocab_min=N, vocab_max=N")
	fs.StringVar(&opts.field, "field", "", "object field that holds each prompt (default prompt_token_ids, then prompt)")
	fs.IntVar(&o.Requests, "requests", 0, "requests per round: the file's first N prompts (default every prompt)")
	fs.IntVar(&o.Rounds, "rounds", 1, "send the requests this many times")
	fs.IntVar(&o.Concurrency, "concurrency", 1, "requests in flight at most (without --rate, a closed loop of that many)")
	fs.Float64Var(&o.Rate, "rate", 0, "mean arrival rate, requests per second, of a seeded Poisson schedule (0: closed loop)")
	fs.Float64Var(&o.Burstiness, "burstiness", 0, "gamma shape of the arrival gaps with --rate (default 1, Poisson; below 1 burstier)")
	fs.Uint64Var(&o.Seed, "seed", 0, "seed of the --rate schedule")
	fs.DurationVar(&o.Duration, "duration", 0, "send requests until this time has passed (cycling through the prompts), in place of --requests × --rounds")
	fs.IntVar(&o.Warmup, "warmup", 0, "send this many warm-up requests first, waited for, neither measured nor in the sent digest")
	fs.Float64Var(&o.RampFrom, "ramp-from", 0, "with --ramp-over: the rate (with --rate) or concurrency the ramp starts at")
	fs.DurationVar(&o.RampOver, "ramp-over", 0, "ramp the rate (with --rate) or the concurrency linearly from --ramp-from to its target over this time")
	fs.DurationVar(&o.ConnectTimeout, "connect-timeout", loadgen.DefaultConnectTimeout, "deadline to connect (and for TLS)")
	fs.DurationVar(&o.RequestTimeout, "request-timeout", loadgen.DefaultRequestTimeout, "deadline of one request, to its last byte: past it the request is a failure (timeout)")
	fs.DurationVar(&o.Timeout, "timeout", loadgen.DefaultTimeout, "deadline of the whole run: requests in flight then are failures (cancelled), the rest not sent")
	fs.DurationVar(&o.ProgressEvery, "progress-every", loadgen.DefaultProgressEvery, "a progress line on stderr this often")
	fs.StringVar(&opts.files.Record, "out", "", "write the result here, in the shape of vLLM's benchmark_serving result (read as format vllm)")
	fs.StringVar(&opts.files.PerRequest, "per-request", "", "write one JSON line per request here: send time, TTFT, ITLs, E2E, tokens, status, error")
	fs.StringVar(&opts.files.Sent, "records", "", "write the digest records of the prompts sent, in order of sending (abbench digest --explain reads them)")
	fs.StringVar(&opts.files.Cycle, "dataset-records", "", "with --duration: write the digest records of the prompts once, the cycle the requests go through")
	fs.StringVar(&opts.files.Warmup, "warmup-records", "", "write the digest records of the warm-up requests' prompts here")
	fs.StringVar(&opts.files.SentMultiset, "multiset-records", "", "write them under the multiset algorithm too (token prompts), for a server that hashes a multiset")
	fs.BoolVar(&opts.allowFailures, "allow-failures", false, "exit 0 when requests failed: the record counts them (a scenario's client does this; its evidence censors requests-failed)")
	return cmd
}

func runLoad(cmd *cobra.Command, opts loadOptions) error {
	opts.o.Endpoint = loadgen.Endpoint(opts.endpoint)
	const usage = "abbench load --url URL --model NAME (--prompts FILE | --synthetic SPEC) --out FILE"
	if opts.prompts == "" && opts.synthetic == "" || opts.files.Record == "" {
		return cli.Usagef(usage, "--prompts and --out are required (or --synthetic in place of --prompts)")
	}
	if opts.prompts != "" && opts.synthetic != "" {
		return cli.Usagef(usage, "give one of --prompts and --synthetic: a dataset file, or a synthetic workload")
	}
	if err := givenZero(cmd); err != nil {
		return err
	}
	if err := writableOutputs(opts.files); err != nil {
		return err
	}
	items, err := readItems(opts)
	if err != nil {
		return err
	}
	if opts.o.Requests == 0 {
		opts.o.Requests = len(items)
	}
	// What the run says of each request waits beside the record, where
	// its files go, not in memory.
	opts.o.SpoolDir, opts.o.PerRequest, opts.o.NoPerRequest = filepath.Dir(opts.files.Record), opts.files.PerRequest, opts.files.PerRequest == ""
	res, err := loadgen.RunItems(cmd.Context(), items, opts.o)
	var se *loadgen.SpoolError
	switch {
	case errors.As(err, &se):
		return cli.Usage(err, "--out must name a file in a directory that exists and can be written")
	case err != nil:
		return cli.Usage(asFlags(err), "run 'abbench load --help' for the flags")
	}
	defer res.Close()
	if err := res.Write(opts.files); err != nil {
		return err
	}
	if err := res.PrintSummary(cmd.OutOrStdout()); err != nil {
		return err
	}
	return loadStatus(cmd.Context().Err(), res.Summarize(), res, opts.allowFailures)
}

// givenZero refuses a 0 given to a flag whose 0 is its default's stand-in
// (--rounds 0 ran one round, --burstiness 0 a Poisson schedule, --duration
// 0s the requests x rounds): a value given is a value meant, and the
// record would say another.
func givenZero(cmd *cobra.Command) error {
	fs := cmd.Flags()
	for _, f := range []struct{ name, want string }{
		{"rounds", "a whole number of at least 1"},
		{"concurrency", "a whole number of at least 1"},
		{"requests", "a whole number of at least 1 (leave it out for every prompt)"},
		{"burstiness", "a gamma shape above 0 (1: Poisson; below 1 burstier)"},
		{"duration", "a time above 0 (leave it out for --requests x --rounds)"},
	} {
		if !fs.Changed(f.name) {
			continue
		}
		if v := fs.Lookup(f.name).Value.String(); v == "0" || v == "0s" {
			return cli.Usagef("run 'abbench load --help' for the flags", "--%s %s: %s", f.name, v, f.want)
		}
	}
	return nil
}

// asFlags names each option the run refused as the flag that set it
// ("--max-tokens -1: ..."), one line each; other problems as they are.
func asFlags(err error) error {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
		var oe *loadgen.OptionError
		if errors.As(e, &oe) {
			out[i] = fmt.Errorf("--%s %s: %s", oe.Option, oe.Value, oe.Want)
		}
	}
	return errors.Join(out...)
}

// writableOutputs refuses, before any request is sent, a file flag whose
// directory does not exist or cannot be written, naming the flag: every
// file is written at the run's end, and a --duration 1h run lost its
// hour to a --records path with a typo in it.
func writableOutputs(f loadgen.Files) error {
	for _, o := range []struct{ flag, path string }{
		{"out", f.Record}, {"per-request", f.PerRequest}, {"records", f.Sent}, {"multiset-records", f.SentMultiset},
		{"dataset-records", f.Cycle}, {"warmup-records", f.Warmup},
	} {
		if o.path == "" {
			continue
		}
		dir := filepath.Dir(o.path)
		probe, err := os.CreateTemp(dir, ".abbench-load-probe-*")
		if err != nil {
			return cli.Usagef("--"+o.flag+" must name a file in a directory that exists and can be written", "--%s %s: its directory %s cannot take it: %v", o.flag, o.path, dir, errors.Unwrap(err))
		}
		_ = probe.Close() // empty, and removed at once
		_ = os.Remove(probe.Name())
	}
	return nil
}

// readItems reads the workload: the dataset file, or the synthetic spec.
func readItems(opts loadOptions) ([]loadgen.Item, error) {
	if opts.synthetic != "" {
		if opts.field != "" || opts.multiTurn {
			return nil, cli.Usagef("abbench load --synthetic SPEC", "--synthetic takes no --field or --multi-turn: it makes token prompts of its own")
		}
		spec, err := loadgen.ParseSynthetic(opts.synthetic)
		if err != nil {
			return nil, cli.Usage(err, "")
		}
		return spec.Items(), nil
	}
	items, err := loadgen.ReadDataset(loadgen.Dataset{Path: opts.prompts, Field: opts.field, MultiTurn: opts.multiTurn, Limit: opts.o.Requests})
	var le *digest.LineError
	var ee *digest.EntryError
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, cli.Usage(err, "--prompts names a dataset: a JSON Lines prompts file, ShareGPT JSON or conversation JSON Lines")
	case errors.As(err, &le), errors.As(err, &ee):
		return nil, cli.Usage(err, "")
	case err != nil:
		return nil, cli.Usage(err, "docs/digest.md describes each dataset form")
	}
	return items, nil
}

// loadStatus is how a load run ends: stopped (exit 1), with failed
// requests (exit 3, unless they are allowed), or every request succeeded.
func loadStatus(stopped error, s loadgen.Summary, res *loadgen.Result, allow bool) error {
	if stopped != nil {
		// In the words and counts of the summary above it (and of the
		// last progress line: sent = succeeded + failed in flight).
		notSent := s.Failures[loadgen.KindNotSent]
		return fmt.Errorf("stopped: of %d requests, %d succeeded, %d failed and %d were not sent; the record holds each", s.Requested, s.Completed, s.Failed-notSent, notSent)
	}
	if s.Failed == 0 || allow {
		return nil
	}
	var kinds []string
	for _, kind := range slices.Sorted(maps.Keys(s.Failures)) {
		kinds = append(kinds, fmt.Sprintf("%d %s", s.Failures[kind], kind))
	}
	first := ""
	if o := res.FirstFailure(); o != nil {
		first = fmt.Sprintf(" (the first, request %d: %s)", o.Index, o.Error)
	}
	hint := "the record counts them and names each; a comparison of this run would be censored requests-failed"
	if s.Completed == 0 && s.Failures[loadgen.KindConnect] > 0 {
		// Not one connection: the server, not the requests.
		hint = "no request got a connection: is the server up, and are --url's host and port its own? " + hint
	}
	return &cli.Error{Code: cli.ExitCensored, Err: fmt.Errorf("%d of %d requests failed: %s%s", s.Failed, s.Requested, strings.Join(kinds, ", "), first), Hint: hint}
}
