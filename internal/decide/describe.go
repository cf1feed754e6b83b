package decide

// Describe is the median, mean and sample standard deviation of x (sd 0
// for fewer than two values), computed as the tests compute them, so the
// numbers a report shows beside a verdict are the ones it came from.
func Describe(x []float64) (med, mean, sd float64) {
	mean, sd = meanSD(x)
	return median(x), mean, sd
}
