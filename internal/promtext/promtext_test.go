package promtext

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// scrape is in the form of vLLM's /metrics (prometheus_client): help and
// type lines, labels, a histogram's +Inf bucket, a name with colons.
const scrape = `# HELP vllm:num_preemptions_total Cumulative number of preemption from the engine.
# TYPE vllm:num_preemptions_total counter
vllm:num_preemptions_total{engine="0",model_name="Qwen/Qwen3-0.6B"} 3.0
# HELP vllm:prefix_cache_hits_total Prefix cache hits, in terms of number of cached tokens.
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{engine="0",model_name="Qwen/Qwen3-0.6B"} 1024.0
vllm:prefix_cache_hits_total{engine="1",model_name="Qwen/Qwen3-0.6B"} 512.0
# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_bucket{engine="0",le="0.3",model_name="Qwen/Qwen3-0.6B"} 0.0
vllm:e2e_request_latency_seconds_bucket{engine="0",le="+Inf",model_name="Qwen/Qwen3-0.6B"} 10.0
process_start_time_seconds 1.7649e+09 1764900000000
weird{path="a\\b \"c\"\nd", } NaN
`

func TestParseAndSum(t *testing.T) {
	ss, err := Parse([]byte(scrape))
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 7 || ss[6].Labels["path"] != "a\\b \"c\"\nd" || !math.IsNaN(ss[6].Value) {
		t.Fatalf("%d samples: %+v", len(ss), ss)
	}
	sel, _ := ParseSeries("vllm:prefix_cache_hits_total", false)
	if v, n := Sum(ss, sel); v != 1536 || n != 2 {
		t.Errorf("every engine's hits: %v of %d series", v, n)
	}
	sel, _ = ParseSeries(`vllm:prefix_cache_hits_total{engine="1"}`, false)
	if v, n := Sum(ss, sel); v != 512 || n != 1 {
		t.Errorf("engine 1's hits: %v of %d series", v, n)
	}
	sel, _ = ParseSeries("vllm:num_requests_waiting", false)
	if v, n := Sum(ss, sel); !math.IsNaN(v) || n != 0 {
		t.Errorf("a metric not there: %v of %d series", v, n)
	}
}

// Every line that is not of the format is an error naming its line.
func TestParseRefusesWhatIsNotTheFormat(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"ok 1\nok 2\n", "line 2: series ok is given twice"},
		{"ok{a=\"1\",b=\"2\"} 1\nok{b=\"2\",a=\"1\"} 1\n", "line 2: series ok,a=\"1\",b=\"2\" is given twice"},
		{"1bad 1\n", `line 1: "1bad" is no metric name`},
		{"m{a=1} 1\n", "line 1: m: label a: the value is not quoted"},
		{"m{a=\"1} 1\n", "the value's quote is not closed"},
		{"m{a=\"\\t\"} 1\n", `unknown escape \t`},
		{"m{a=\"1\",a=\"2\"} 1\n", "label a is given twice"},
		{"m one\n", `m: value "one" is no number`},
		{"m 1 2 3\n", "a sample is a series, a value and an optional timestamp"},
		{"m 1 1.5\n", `timestamp "1.5" is no integer`},
		{"m\n", "a sample is a series, a value"},
		{"# TYPE m countr\n", "# TYPE m: the type is one of counter"},
		{"# TYPE m counter\n# TYPE m gauge\n", "line 2: # TYPE m is given twice"},
		{"<html>\n", `"<html>" is no metric name`},
	} {
		_, err := Parse([]byte(c.body))
		var pe *Error
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.body, err, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(scrape))
	f.Add([]byte("m{a=\"\\\"\"} 1e400\n# EOF\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ss, err := Parse(data)
		if err != nil {
			return
		}
		for _, s := range ss {
			if !metricName(s.Name) {
				t.Fatalf("sample of name %q", s.Name)
			}
			sel := Sample{Name: s.Name, Labels: s.Labels}
			if _, n := Sum(ss, sel); n < 1 {
				t.Fatalf("%s selects no series", s.key())
			}
		}
	})
}
