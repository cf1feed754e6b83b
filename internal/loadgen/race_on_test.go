//go:build race

package loadgen

// raceOn: the race detector is on, which multiplies every allocation's
// size and cost; memory figures mean nothing under it.
const raceOn = true
