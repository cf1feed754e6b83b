package records

func init() {
	addCorpus(map[string]corpusCase{
		// sysbench 1.0.20, read-only OLTP, 100 threads for 300 s.
		"sysbench/1.0.20-read-only-100-threads-300s.txt": {Format: "sysbench", Metric: "transactions_per_second", Unit: UnitTransactions,
			Metrics: map[string]float64{"transactions_per_second": 12228.34, "queries_per_second": 12228.34, "duration": 300.0807,
				"mean_latency_ms": 8.17, "max_latency_ms": 14379.93, "p95_latency_ms": 13.46},
			Completed: 3669516, Failed: 0, Valid: true},
		// sysbench 0.5: its 3 ignored errors are transactions rolled back
		// and run again, not failed ones.
		"sysbench/0.5-oltp-rw-3-ignored-errors.txt": {Format: "sysbench", Metric: "transactions_per_second", Unit: UnitTransactions,
			Metrics: map[string]float64{"transactions_per_second": 1528.57, "read_write_requests_per_second": 107000.75, "duration": 181.0202,
				"mean_latency_ms": 20.93, "max_latency_ms": 1038.56, "p95_latency_ms": 33.93},
			Completed: 276702, Failed: 0, Valid: true},
		// sysbench 1.0.17, four runs appended (8 to 64 threads): the first.
		"sysbench/1.0.17-runs-appended.txt": {Format: "sysbench", Result: "1", Metric: "transactions_per_second", Unit: UnitTransactions,
			Metrics: map[string]float64{"transactions_per_second": 222.13, "queries_per_second": 4442.69, "duration": 300.0686,
				"mean_latency_ms": 36.00, "p95_latency_ms": 62.19},
			Completed: 66656, Failed: 0, Valid: true},
	})
}
