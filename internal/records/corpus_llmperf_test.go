package records

import (
	"bytes"
	"math"
	"testing"
)

func init() {
	addCorpus(map[string]corpusCase{
		// LLMPerf summaries of the LLMPerf leaderboard (schema 2023-08-31),
		// each run asked for 150 completed requests at concurrency 5.
		"llmperf/leaderboard-anyscale-70b-summary.json": {Format: "llmperf", Requests: 150,
			Metrics: map[string]float64{"output_throughput": 207.52121071152493, "request_throughput": 84.73327721639254 / 60,
				"request_output_throughput": 25.60905132905225, "mean_ttft_s": 0.24890269464666667},
			Completed: 150, Failed: 0, Valid: true},
		"llmperf/leaderboard-together-13b-1-error-summary.json": {Format: "llmperf", Requests: 150,
			Metrics:   map[string]float64{"output_throughput": 86.2774490346918, "request_throughput": 31.79260518404619 / 60},
			Completed: 149, Failed: 1, Problem: "requests failed with error codes {-1.0: 1} (results_error_code_frequency)"},
		"llmperf/leaderboard-bedrock-70b-49-errors-summary.json": {Format: "llmperf", Requests: 150,
			Metrics:   map[string]float64{"output_throughput": 62.867056292903534, "mean_ttft_s": 0.40837363779203295},
			Completed: 101, Failed: 49, Problem: "requests failed with error codes {-100.0: 49} (results_error_code_frequency)"},
		"llmperf/leaderboard-lepton-13b-130-errors-summary.json": {Format: "llmperf", Requests: 150,
			Metrics:   map[string]float64{"output_throughput": 59.29342568262707},
			Completed: 20, Failed: 130, Problem: "requests failed with error codes {429.0: 130} (results_error_code_frequency)"},
		// The test timed out before 150 requests: 145 started, all completed.
		"llmperf/leaderboard-replicate-70b-145-completed-summary.json": {Format: "llmperf", Requests: 150,
			Metrics:   map[string]float64{"output_throughput": 29.434595028687124},
			Completed: 145, Failed: 0, Problem: "the record's own request count (145) is not the workload's requests (150)"},
		// The anyscale run's individual responses: its means are the
		// summary's (results_*_mean of the file above).
		"llmperf/leaderboard-anyscale-70b-individual-responses.json": {Format: "llmperf-responses", Requests: 150, Metric: "request_output_throughput",
			Metrics: map[string]float64{"request_output_throughput": 25.60905132905225, "mean_ttft_s": 0.24890269464666667,
				"mean_itl_s": 0.01583612777604942, "mean_e2el_s": 2.3546667737533324},
			Completed: 150, Failed: 0, Valid: true},
		// The lepton-13b run's: 130 responses with error code 429 (no message).
		"llmperf/leaderboard-lepton-13b-130-errors-individual-responses.json": {Format: "llmperf-responses", Requests: 150, Metric: "request_output_throughput",
			Metrics:   map[string]float64{"request_output_throughput": 14.810643789453005, "mean_ttft_s": 1.0672002336499957},
			Completed: 20, Failed: 130, Problem: "requests failed with error codes {429: 130}"},
		// The bedrock-70b run's: 49 responses with LLMPerf's own code -100.
		"llmperf/leaderboard-bedrock-70b-49-errors-individual-responses.json": {Format: "llmperf-responses", Requests: 150, Metric: "request_output_throughput",
			Metrics:   map[string]float64{"request_output_throughput": 21.072678550728643, "mean_e2el_s": 7.058203132000026},
			Completed: 101, Failed: 49, Problem: `requests failed with error codes {-100: 49 "Output too few tokens 102"}`},
	})
}

// A run's individual responses give the counts and the means its summary
// gives, failed responses left out of the means as the summary leaves them.
func TestLLMPerfResponsesAgreeWithTheSummary(t *testing.T) {
	for _, run := range []string{"anyscale-70b", "lepton-13b-130-errors", "bedrock-70b-49-errors"} {
		spec := Spec{Requested: 150, Metric: "request_output_throughput"}
		spec.Format = "llmperf"
		summary := Parse(realRecord(t, "llmperf/leaderboard-"+run+"-summary.json"), "summary.json", spec)
		spec.Format = "llmperf-responses"
		responses := Parse(realRecord(t, "llmperf/leaderboard-"+run+"-individual-responses.json"), "responses.json", spec)
		for _, name := range []string{"request_output_throughput", "mean_ttft_s", "mean_itl_s", "mean_e2el_s"} {
			s, r := summary.Metrics[name], responses.Metrics[name]
			if s == 0 || math.Abs(s-r) > 1e-12*s {
				t.Errorf("%s %s: summary %v, responses %v", run, name, s, r)
			}
		}
		if summary.Completed != responses.Completed || summary.Failed != responses.Failed || summary.Requested != responses.Requested {
			t.Errorf("%s: summary %d+%d of %d, responses %d+%d of %d", run, summary.Completed, summary.Failed, summary.Requested,
				responses.Completed, responses.Failed, responses.Requested)
		}
	}
}

// A response with an error code failed, and its metrics count in no mean
// (the real file of a run without errors, its first response edited in
// this test to HTTP 429).
func TestLLMPerfResponseWithAnErrorCode(t *testing.T) {
	data := realRecord(t, "llmperf/leaderboard-anyscale-70b-individual-responses.json")
	edited := bytes.Replace(data, []byte(`"error_code": null`), []byte(`"error_code": 429`), 1)
	r := Parse(edited, "responses.json", Spec{Format: "llmperf-responses", Requested: 150, Metric: "request_output_throughput"})
	if r.Valid || r.Completed != 149 || r.Failed != 1 || r.Problems[0] != "requests failed with error codes {429: 1}" {
		t.Fatalf("valid %v, %d completed %d failed, problems %q", r.Valid, r.Completed, r.Failed, r.Problems)
	}
	whole := Parse(data, "responses.json", Spec{Format: "llmperf-responses", Metric: "request_output_throughput"})
	if r.Metrics["mean_ttft_s"] == whole.Metrics["mean_ttft_s"] {
		t.Fatalf("the failed response's TTFT counts in the mean")
	}
}
