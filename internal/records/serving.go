package records

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/abbench/abbench/internal/redact"
)

// servingMetrics are the headline metrics of a serving result, each under
// its own name, in the order their problems are said: a slice, not a map,
// so the same record gives the same problems in the same order (a bundle's
// evidence is derived again and must come out equal).
var servingMetrics = []string{"output_throughput", "request_throughput", "total_token_throughput", "duration"}

// fromServingObject reads the keys of vLLM's benchmark_serving result,
// which TensorRT-LLM's copy of it and SGLang's bench_serving write too.
func (r *Record) fromServingObject(obj map[string]any) {
	for _, key := range servingMetrics {
		if v, ok := obj[key]; ok {
			if f, ok := number(v); ok {
				r.Metrics[key] = f
			} else {
				r.problem("%s is not a number", key)
			}
		}
	}
	r.servingLatencies(obj)
	if v, ok := obj["total_output_tokens"]; ok {
		if n, ok := r.count("total_output_tokens", v); ok {
			r.OutputTokens = &n
		}
	}
	for _, c := range []struct {
		key string
		dst *int
	}{{"completed", &r.Completed}, {"num_prompts", &r.Requested}, {"failed", &r.Failed}} {
		if v, ok := obj[c.key]; ok {
			if n, ok := r.count(c.key, v); ok {
				*c.dst = n
			}
		}
	}
	r.servingFailures(obj)
}

// servingFailures reads the failures a serving result names beyond its
// count: vLLM's errors (any non-empty one is a failed request) and the
// first failed request, as abbench's client (first_failure) or vLLM's
// errors name it.
func (r *Record) servingFailures(obj map[string]any) {
	if first, ok := obj["first_failure"].(string); ok && first != "" {
		r.FirstFailure = firstFailure(first)
	}
	errs, ok := obj["errors"].([]any)
	if !ok {
		return
	}
	failed := 0
	for i, e := range errs {
		if s, ok := e.(string); ok && s != "" {
			failed++
			if r.FirstFailure == "" {
				r.FirstFailure = firstFailure(fmt.Sprintf("request %d: %s", i, s))
			}
		}
	}
	if failed > 0 && failed > r.Failed {
		r.Failed = failed
	}
}

// maxFirstFailure bounds Record.FirstFailure: a server's error page can
// be any size, and the reason that quotes it is read by a person.
const maxFirstFailure = 240

// firstFailure is a failed request's message as a record keeps it: one
// line of printable text (a server's error body can hold terminal
// escapes and invalid UTF-8, and a reason is printed to a terminal),
// bounded, a URL's password taken out.
func firstFailure(msg string) string {
	msg = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || !unicode.IsPrint(r) && !unicode.IsSpace(r) {
			return '?'
		}
		return r
	}, strings.ToValidUTF8(msg, "?"))
	msg = strings.Join(strings.Fields(msg), " ")
	return truncateText(redact.URL(msg), maxFirstFailure)
}

// servingResult reads this run's result of a serving file: its one JSON
// object, or, in a file a tool appended a result per run to (vLLM's
// --append-result, SGLang bench_serving's --output-file), the one
// throughput.result names by its 1-based place; see chooseServing. It
// returns the result's object; false when there is none, with the
// record unreadable.
func (r *Record) servingResult(data []byte, spec Spec) (map[string]any, bool) {
	results, err := decodeKeptObjects(data, servingKept(spec.SLO))
	if err != nil {
		r.unreadable("does not parse as a %s result: %v", r.Format, err)
		return nil, false
	}
	i, ok := r.chooseServing(results, spec.Result)
	if !ok {
		return nil, false
	}
	obj := results[i]
	r.fromServingObject(obj)
	r.goodput(obj, spec.SLO)
	r.flags(obj, spec.Flag)
	return obj, true
}

// goodputLists are the per-request lists goodput reads (see perRequest),
// errors among them.
var goodputLists = []string{"ttfts", "itls", "output_lens", "errors"}

// servingKept keeps what a serving result is read for: its top-level
// numbers, strings and flags, and its errors list; and, with the
// scenario's SLOs, the per-request lists goodput is computed from. Not
// the other per-request lists (prompt lengths, generated texts), nor
// those without SLOs: they are most of a large result.
func servingKept(slo *SLO) keepFunc {
	lists := goodputLists[len(goodputLists)-1:] // errors
	if slo.Set() {
		lists = goodputLists
	}
	return func(path []string, container bool) bool {
		switch {
		case len(path) == 1:
			return !container || slices.Contains(lists, path[0])
		case path[0] == "itls" && len(path) == 2:
			return true // a request's list of gaps
		default:
			return !container && slices.Contains(lists, path[0])
		}
	}
}

// maxDescribed is how many of a file's results its refusal describes,
// the first and the last half of them, so that a file of thousands
// gives a reason a reader can read.
const maxDescribed = 12

// servingKeys tell the results of one appended file apart, as their
// tools write them: vLLM's date, and the load each run was given.
var servingKeys = []string{"date", "request_rate", "max_concurrency", "num_prompts", "completed"}

// chooseServing picks this run's result among a file's: a file of one
// gives it; a file of several only the one throughput.result names by
// its place ("1" is the first), since which of them this run wrote the
// file does not say (the last is the previous run's when this one wrote
// none). A file of several read without a name is unreadable, each of
// its results described by what tells them apart.
func (r *Record) chooseServing(results []map[string]any, want string) (int, bool) {
	if want == "" && len(results) > 1 {
		r.chose = true
		var described []string
		for i, obj := range results {
			if len(results) > maxDescribed && i == maxDescribed/2 {
				described = append(described, fmt.Sprintf("%d more", len(results)-maxDescribed))
			}
			if len(results) > maxDescribed && i >= maxDescribed/2 && i < len(results)-maxDescribed/2 {
				continue
			}
			var parts []string
			for _, key := range servingKeys {
				if v := obj[key]; v != nil && differ(results, key) {
					parts = append(parts, fmt.Sprintf("%s %s", key, truncateText(fmt.Sprint(v), 40)))
				}
			}
			described = append(described, fmt.Sprintf("%d: %s", i+1, cmp.Or(strings.Join(parts, ", "), "the same date and load")))
		}
		r.unreadable("holds %d results, appended one per run (%s): name this run's by its place with throughput.result (\"1\" to \"%d\"), or give each run a file of its own",
			len(results), strings.Join(described, "; "), len(results))
		return 0, false
	}
	names := make([]string, len(results))
	for i := range results {
		names[i] = strconv.Itoa(i + 1)
	}
	return r.choose(names, want)
}

// differ says whether the results' values of key are not all one.
func differ(results []map[string]any, key string) bool {
	first := fmt.Sprint(results[0][key])
	for _, obj := range results[1:] {
		if fmt.Sprint(obj[key]) != first {
			return true
		}
	}
	return false
}
