package records

import "testing"

// No handleSummary file with a crossed threshold, and no k6 summary
// before http_req_failed, was published: the rules are tested on
// minimal edits of the real files, each named.
func TestK6Rules(t *testing.T) {
	const (
		handleSummary = "k6/handlesummary-thresholds-ok.json"
		export        = "k6/qr-summary-export-all-passed.json"
		rt            = "request_throughput"
	)
	checkEdited(t, "k6", []editedCase{
		{"handleSummary: a threshold not ok", handleSummary, []string{"\"rate<0.05\": {\n          \"ok\": true", "\"rate<0.05\": {\n          \"ok\": false"}, rt,
			"the tool says the run is not valid: http_req_failed: threshold rate<0.05 crossed (rate 0.011321679178259577)"},
		{"export: a threshold neither true nor false", "k6/rate-limiter-low-38pct-failed-requests.json", []string{`"p(95)<50": false`, `"p(95)<50": "no"`}, rt,
			`http_req_duration: threshold "p(95)<50" is not true, false or {"ok": true or false}`},
		{"export: no http_req_failed (k6 before v0.31)", export, []string{"\"http_req_failed\": {\n            \"passes\": 0,\n            \"fails\": 493168,\n            \"value\": 0\n        },", ""}, rt,
			"has no http_req_failed metric (k6 counts failed requests from v0.31 on): which requests failed is unknown"},
		{"export: http_req_failed counts other requests", export, []string{"\"passes\": 0,\n            \"fails\": 493168,", "\"passes\": 0,\n            \"fails\": 493167,"}, rt,
			"http_req_failed counts 0 failed and 493167 succeeded requests, http_reqs 493168"},
		{"export: a check failed", export, []string{"\"passes\": 493168,\n                    \"fails\": 0,", "\"passes\": 493167,\n                    \"fails\": 1,",
			"\"checks\": {\n            \"passes\": 493168,\n            \"fails\": 0,", "\"checks\": {\n            \"passes\": 493167,\n            \"fails\": 1,"}, rt,
			`k6 checks failed: 1 of 493168 ("Response status code was 200" 1)`},
		{"not a k6 summary", "mlperf/offline-valid-10-samples-summary.txt", nil, rt,
			"does not parse as a k6 summary: invalid character '=' looking for beginning of value"},
		{"JSON, but no metrics", "vllm/sweep-seqs4-run0.json", nil, rt,
			`has no "metrics" object: is it a k6 summary (--summary-export, or handleSummary's data)?`},
	})
}
