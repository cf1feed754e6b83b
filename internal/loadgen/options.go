package loadgen

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/redact"
)

// Endpoint is the OpenAI API a client calls.
type Endpoint string

// The endpoints: /v1/completions (token or text prompts) and
// /v1/chat/completions (text prompts, each one user message).
const (
	Completions Endpoint = "completions"
	Chat        Endpoint = "chat"
)

// Endpoints lists every endpoint, for help and errors.
var Endpoints = []Endpoint{Completions, Chat}

// Path is the endpoint's path under the server's /v1.
func (e Endpoint) Path() string {
	if e == Chat {
		return "/chat/completions"
	}
	return "/completions"
}

// Defaults of the bounds a client leaves out.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultRequestTimeout = 10 * time.Minute
	DefaultTimeout        = time.Hour
	DefaultProgressEvery  = 2 * time.Second
)

// Options are one load run's settings.
type Options struct {
	// URL is the server's base URL (http://HOST:PORT, or that with /v1);
	// the endpoint's path is added.
	URL      string
	Model    string
	Endpoint Endpoint
	Stream   bool
	// MaxTokens is each request's max_tokens (0: not sent, the server decides).
	MaxTokens int
	// IgnoreEOS asks the server to generate MaxTokens whatever it samples
	// (ignore_eos, which vLLM, SGLang and TensorRT-LLM honour), so output
	// lengths are matched across arms.
	IgnoreEOS bool

	// Requests per round (the first Requests prompts); Rounds repeats them.
	Requests, Rounds int
	// Concurrency caps the requests in flight; without a Rate it is a
	// closed loop of that many.
	Concurrency int
	// Rate is the mean arrival rate in requests per second (0: closed loop).
	Rate float64
	// Burstiness is the gamma shape of the inter-arrival times (1: Poisson;
	// below 1 burstier, above 1 more regular); used with Rate.
	Burstiness float64
	// Seed seeds the arrival schedule.
	Seed uint64
	// Duration, when above 0, sends requests until it has passed since
	// the measured phase began, cycling through the Requests items, in
	// place of Requests × Rounds (workload.go).
	Duration time.Duration
	// Warmup requests are sent first and waited for, not measured and
	// not in the sent digest (Result.Warmup, Result.WarmupSent).
	Warmup int
	// RampOver, when above 0, ramps the load linearly from RampFrom to
	// its target over that time: the rate with a Rate, else the
	// concurrency.
	RampFrom float64
	RampOver time.Duration

	ConnectTimeout time.Duration // dialing, and TLS
	RequestTimeout time.Duration // one request, from sending to its last byte
	Timeout        time.Duration // the whole run

	// APIKey, when set, is sent as a bearer token; never written anywhere.
	APIKey string
	// Secrets are values never written either (those the scenario drew
	// from the environment): redacted, with APIKey, from every error.
	Secrets redact.Values
	// Progress receives a line every ProgressEvery (nil: none).
	Progress      io.Writer
	ProgressEvery time.Duration
	// SpoolDir holds what the run says of each request (its line of the
	// per-request file, its values in the record's arrays) as the run
	// goes, in files removed as they are made ("": the system's
	// temporary directory): the run's memory stays flat, its disk grows
	// by the files it will write.
	SpoolDir string
	// PerRequest, when named, is where the per-request lines go as the
	// requests end, in place of a spool: nothing is there until
	// Result.Write (Files.PerRequest the same path) puts the file in place
	// whole; a run whose result is closed unwritten leaves it as it was.
	PerRequest string
	// NoPerRequest says no per-request file will be written: the run
	// makes no lines (Result.Write of one then fails).
	NoPerRequest bool
}

// withDefaults fills the bounds left at zero.
func (o Options) withDefaults() Options {
	if o.Endpoint == "" {
		o.Endpoint = Completions
	}
	if o.Rounds == 0 {
		o.Rounds = 1
	}
	if o.Concurrency == 0 {
		o.Concurrency = 1
	}
	if o.Rate > 0 && o.Burstiness == 0 {
		o.Burstiness = 1
	}
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&o.ConnectTimeout, DefaultConnectTimeout}, {&o.RequestTimeout, DefaultRequestTimeout}, {&o.Timeout, DefaultTimeout}, {&o.ProgressEvery, DefaultProgressEvery}} {
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	return o
}

// Target is the full URL requests go to.
func (o Options) Target() (string, error) {
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("url %q: give the server's base URL, such as http://127.0.0.1:8000", o.URL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("url %q: give the base URL without a query or fragment", o.URL)
	}
	base := strings.TrimRight(o.URL, "/")
	if strings.HasSuffix(base, "/completions") {
		return "", fmt.Errorf("url %q names an endpoint: give the base URL (%s), and choose the endpoint with --endpoint (a scenario's endpoint:), %s", o.URL, strings.TrimSuffix(strings.TrimSuffix(base, "/completions"), "/chat"), joinEndpoints())
	}
	if !strings.HasSuffix(base, "/v1") {
		base += "/v1"
	}
	return base + o.Endpoint.Path(), nil
}

func joinEndpoints() string {
	s := make([]string, len(Endpoints))
	for i, e := range Endpoints {
		s[i] = string(e)
	}
	return strings.Join(s, " or ")
}

// check says what is wrong with o for the workload's items, every problem.
func (o Options) check(items []Item) error {
	prompts, unit := len(items), digest.UnitNone
	if prompts > 0 {
		unit = items[0].Prompt.Unit
	}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	badOption := func(option string, value any, format string, args ...any) {
		errs = append(errs, optionError(option, value, format, args...))
	}
	if _, err := o.Target(); err != nil {
		errs = append(errs, err)
	}
	if o.Model == "" {
		bad("no model: name the model the server serves (the model field of every request)")
	}
	switch o.Endpoint {
	case Completions:
	case Chat:
		if unit == digest.UnitTokens {
			bad("endpoint chat sends text messages, but the prompts are token IDs: use endpoint completions, or a prompts file of text")
		}
	default:
		badOption("endpoint", fmt.Sprintf("%q", o.Endpoint), "choose %s", joinEndpoints())
	}
	if prompts == 0 {
		bad("the prompts file holds no prompt")
	}
	if o.Requests < 1 || o.Requests > prompts {
		badOption("requests", o.Requests, "between 1 and the %d prompts of the file", prompts)
	}
	if o.Rounds < 1 {
		badOption("rounds", o.Rounds, "at least 1")
	}
	if o.Concurrency < 1 {
		badOption("concurrency", o.Concurrency, "at least 1")
	}
	if o.MaxTokens < 0 {
		badOption("max-tokens", o.MaxTokens, "at least 0 (0: not sent)")
	}
	if o.Rate < 0 || math.IsInf(o.Rate, 0) || math.IsNaN(o.Rate) {
		badOption("rate", o.Rate, "requests per second above 0, or 0 for a closed loop")
	}
	if o.Rate > 0 && (o.Burstiness <= 0 || math.IsInf(o.Burstiness, 0) || math.IsNaN(o.Burstiness)) {
		badOption("burstiness", o.Burstiness, "above 0 (1 is a Poisson process)")
	}
	if o.Rate == 0 && o.Burstiness != 0 {
		badOption("burstiness", o.Burstiness, "shapes the gaps of a Poisson schedule, and there is no rate: give rate too")
	}
	for _, d := range []struct {
		option string
		v      time.Duration
	}{{"connect-timeout", o.ConnectTimeout}, {"request-timeout", o.RequestTimeout}, {"timeout", o.Timeout}, {"progress-every", o.ProgressEvery}} {
		if d.v <= 0 {
			badOption(d.option, d.v, "must be above 0")
		}
	}
	errs = append(errs, o.checkWorkload(items)...)
	return errors.Join(errs...)
}
