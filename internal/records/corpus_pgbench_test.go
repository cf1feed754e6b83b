package records

func init() {
	addCorpus(map[string]corpusCase{
		// pgbench 16.4 against a cluster endpoint, 380 clients for 20 s.
		"pgbench/cluster-380-clients-prepared-valid.txt": {Format: "pgbench", Metric: "transactions_per_second", Unit: UnitTransactions,
			Metrics:   map[string]float64{"transactions_per_second": 15382.399208, "mean_latency_ms": 7203.565, "initial_connection_time_ms": 2472.277},
			Completed: 270484, Failed: 0, Valid: true, Verdict: &yes},
		// The same test through RDS Proxy: 50 of 600 clients aborted and
		// pgbench says the run was aborted, although it counts no failed
		// transaction.
		"pgbench/rds-proxy-600-clients-run-aborted.txt": {Format: "pgbench", Metric: "transactions_per_second", Unit: UnitTransactions,
			Metrics:   map[string]float64{"transactions_per_second": 3365.804033, "mean_latency_ms": 8699.600, "initial_connection_time_ms": 4959.291},
			Completed: 51186, Failed: 0, Valid: false, Verdict: &no,
			Problem: `the tool says the run is not valid: Run was aborted; the above results are incomplete; 50 clients aborted: ERROR: portal "" does not exist (25), ` +
				`perhaps the backend died while processing (5), ERROR: prepared statement "P_0" already exists (20)`},
	})
}
