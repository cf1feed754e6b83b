package records

// ns is a LoadGen time in ns, as the record holds it: in ms.
func ns(v float64) float64 { return v / 1e6 }

var (
	yes, no = true, false
	// The first problem of the INVALID LLM Server run, its summary and its
	// detail log alike: LoadGen's failed checks, its advice, and the TPOT
	// early stopping test it failed.
	llmServerInvalid = "the tool says the run is not valid: performance constraints not satisfied; early stopping not satisfied; " +
		"TTFT constrain not met: Reduce target QPS to improve latency; " +
		"TPOT early stopping: Run unsuccessful. Processed 200 queries. Would need to run at least 259 more queries, with the run being successful if every additional query were under latency"
)

func init() {
	addCorpus(map[string]corpusCase{
		// LoadGen 5.1.1, LLM Server: INVALID (TTFT constraint, TPOT early
		// stopping). The summary prints no query count; the detail log does.
		"mlperf/llm-server-invalid-ttft-early-stopping-summary.txt": {Format: "mlperf", Metric: "tokens_per_second", Unit: UnitQueries,
			Metrics: map[string]float64{"tokens_per_second": 462.56, "samples_per_second": 0.74, "scheduled_samples_per_second": 1.90,
				"p99_latency_ms": ns(174539948588), "p99_first_token_latency_ms": ns(149845219523), "p99_tpot_ms": ns(67831600)},
			Completed: -1, Failed: -1, Valid: false, Problem: llmServerInvalid, Verdict: &no},
		"mlperf/llm-server-invalid-ttft-early-stopping-detail.txt": {Format: "mlperf", Metric: "tokens_per_second", Unit: UnitQueries,
			Metrics: map[string]float64{"tokens_per_second": 462.559, "samples_per_second": 0.742879, "scheduled_samples_per_second": 1.90417,
				"p99_latency_ms": ns(174539948588), "p99_first_token_latency_ms": ns(149845219523), "p99_tpot_ms": ns(67831600)},
			Completed: 200, Failed: -1, Valid: false, Problem: llmServerInvalid, Verdict: &no},
		// LoadGen 4.0, Offline, 10 samples in one query: VALID.
		"mlperf/offline-valid-10-samples-summary.txt": {Format: "mlperf", Metric: "samples_per_second", Unit: UnitQueries,
			Metrics:   map[string]float64{"samples_per_second": 0.165037, "p90_latency_ms": ns(60592566749), "mean_latency_ms": ns(33431331185)},
			Completed: -1, Failed: -1, Valid: true, Verdict: &yes},
		"mlperf/offline-valid-10-samples-detail.txt": {Format: "mlperf", Metric: "samples_per_second", Unit: UnitQueries,
			Metrics:   map[string]float64{"samples_per_second": 0.165037, "p90_latency_ms": ns(60592566749), "mean_latency_ms": ns(33431331185)},
			Completed: 1, Failed: -1, Valid: true, Verdict: &yes},
		// LoadGen 4.0, SingleStream: its result is the early stopping
		// estimate of the 90th percentile (the submission checker's
		// early_stopping_latency_ss).
		"mlperf/singlestream-valid-early-stopping-summary.txt": {Format: "mlperf", Metric: "early_stopping_p90_latency_ms", Unit: UnitQueries,
			Metrics: map[string]float64{"early_stopping_p90_latency_ms": ns(1360513), "early_stopping_p99_latency_ms": ns(1665021),
				"p90_latency_ms": ns(1357160), "qps_with_loadgen_overhead": 746.70, "qps_without_loadgen_overhead": 773.36},
			Completed: -1, Failed: -1, Valid: true, Verdict: &yes},
		"mlperf/singlestream-valid-early-stopping-detail.txt": {Format: "mlperf", Metric: "early_stopping_p90_latency_ms", Unit: UnitQueries,
			Metrics: map[string]float64{"early_stopping_p90_latency_ms": ns(1360513), "early_stopping_p99_latency_ms": ns(1665021),
				"p90_latency_ms": ns(1357160), "qps_with_loadgen_overhead": 746.696, "qps_without_loadgen_overhead": 773.359},
			Completed: 7469, Failed: -1, Valid: true, Verdict: &yes},
		// LoadGen 5.0.13, ResNet-50 Server (closed division, one RTX 4090): VALID.
		"mlperf/resnet50-server-valid-rtx4090-summary.txt": {Format: "mlperf", Metric: "samples_per_second", Unit: UnitQueries,
			Metrics:   map[string]float64{"samples_per_second": 35342.50, "scheduled_samples_per_second": 35342.64, "p99_latency_ms": ns(3919806)},
			Completed: -1, Failed: -1, Valid: true, Verdict: &yes},
		"mlperf/resnet50-server-valid-rtx4090-detail.txt": {Format: "mlperf", Metric: "samples_per_second", Unit: UnitQueries,
			Metrics:   map[string]float64{"samples_per_second": 35342.5, "p99_latency_ms": ns(3919806)},
			Completed: 21205583, Failed: -1, Valid: true, Verdict: &yes},
		// LoadGen 5.0.14, Mixtral-8x7B Offline on CPU: VALID, in tokens per
		// second; its latencies of hours are 10^13 ns.
		"mlperf/mixtral-offline-valid-tokens-summary.txt": {Format: "mlperf", Metric: "tokens_per_second", Unit: UnitQueries,
			Metrics:   map[string]float64{"tokens_per_second": 0.0148696, "samples_per_second": 0.000195653, "max_latency_ms": ns(15333278355759)},
			Completed: -1, Failed: -1, Valid: true, Verdict: &yes},
		"mlperf/mixtral-offline-valid-tokens-detail.txt": {Format: "mlperf", Metric: "tokens_per_second", Unit: UnitQueries,
			Metrics:   map[string]float64{"tokens_per_second": 0.0148696, "samples_per_second": 0.000195653, "max_latency_ms": ns(15333278355759)},
			Completed: 1, Failed: -1, Valid: true, Verdict: &yes},
		// LoadGen .5a1 (2020), the old layout: "Result is : VALID", and "1
		// ERROR encountered" (built with uncommitted changes), which
		// MLCommons' submission checker refuses.
		"mlperf/old-format-singlestream-valid-1-error-summary.txt": {Format: "mlperf", Metric: "p90_latency_ms", Unit: UnitQueries,
			Metrics:   map[string]float64{"p90_latency_ms": ns(1429352), "p40_latency_ms": ns(1267168), "qps_with_loadgen_overhead": 757.10},
			Completed: -1, Failed: -1, Valid: false, Problem: "the tool says the run is not valid: 1 ERROR encountered", Verdict: &no},
		// Its plain-text detail log holds no result at all.
		"mlperf/old-format-singlestream-valid-1-error-detail.txt": {Format: "mlperf", Metric: "p90_latency_ms", Unit: UnitQueries,
			Metrics: map[string]float64{}, Completed: -1, Failed: -1, Valid: false,
			Problem: "is LoadGen's plain-text detail log (LoadGen before 1.0), which holds no result: read mlperf_log_summary.txt of the same run"},
	})
}
