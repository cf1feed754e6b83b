package records

// optionalMetric records a metric whose zero is a real measurement, not a
// broken record: no allocation per op, no user time in a short command,
// no spread across one round. At zero it is left out, since every metric
// a record holds must be above 0 (see finish); a scenario that names it
// as its headline is then told the record lacks it.
func (r *Record) optionalMetric(name string, v float64) {
	if v != 0 {
		r.Metrics[name] = v
	}
}

// metricsGiven records each metric the file gives (nil: one it lacks, or
// null).
func (r *Record) metricsGiven(metrics map[string]*float64) {
	for name, v := range metrics {
		if v != nil {
			r.Metrics[name] = *v
		}
	}
}

// optionalMetricsGiven records each metric the file gives as an
// optionalMetric.
func (r *Record) optionalMetricsGiven(metrics map[string]*float64) {
	for name, v := range metrics {
		if v != nil {
			r.optionalMetric(name, *v)
		}
	}
}
