//go:build race

package decide

// raceDetector: this test binary was built with -race.
const raceDetector = true
