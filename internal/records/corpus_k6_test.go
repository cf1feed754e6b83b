package records

func init() {
	addCorpus(map[string]corpusCase{
		// k6 --summary-export: every request and check passed, no thresholds
		// (so no verdict).
		"k6/qr-summary-export-all-passed.json": {Format: "k6", Metric: "request_throughput",
			Metrics: map[string]float64{"request_throughput": 4288.100370179589, "iterations_per_second": 4288.100370179589,
				"http_req_duration_p99_ms": 348.6492700000003, "http_req_duration_p999_ms": 787.1129890000226, "http_req_duration_avg_ms": 19.40724789726824},
			Completed: 493168, Failed: 0, Valid: true},
		// The export's threshold true is a crossed one: p(95) 165.29 ms
		// against < 50. 429s are not expected responses, so k6 counts them
		// failed (http_req_failed passes), although the checks accept them.
		"k6/rate-limiter-heavy-threshold-crossed.json": {Format: "k6", Metric: "request_throughput",
			Metrics:   map[string]float64{"request_throughput": 16704.124848078805, "http_req_duration_p95_ms": 165.28824989999978},
			Completed: 580302, Failed: 171890, Valid: false, Verdict: &no,
			Problem: "the tool says the run is not valid: http_req_duration: threshold p(95)<50 crossed (p(95) 165.28824989999978)"},
		// The threshold held (false), but 435,417 of 1,143,423 requests failed.
		"k6/rate-limiter-low-38pct-failed-requests.json": {Format: "k6", Metric: "request_throughput",
			Metrics:   map[string]float64{"request_throughput": 25408.868076639643, "http_req_duration_p95_ms": 1.15574},
			Completed: 708006, Failed: 435417, Valid: false, Verdict: &yes, Problem: "435417 of 1143423 requests failed"},
		// handleSummary's data: every threshold ok, but 647 requests and
		// 1,294 checks failed.
		"k6/handlesummary-thresholds-ok.json": {Format: "k6", Metric: "request_throughput",
			Metrics:   map[string]float64{"request_throughput": 7.833582374276645, "duration": 7295.129772, "http_req_duration_p95_ms": 130.64669999999998},
			Completed: 56500, Failed: 647, Valid: false, Verdict: &yes,
			Problem: `k6 checks failed: 1294 of 114292 ("status is 200" 647, "response has body" 647)`},
	})
}
