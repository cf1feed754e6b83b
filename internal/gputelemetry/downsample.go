package gputelemetry

import (
	"bytes"
	"time"
)

// Stride says that from a line of SamplesFile on, each line kept of a GPU
// stands for Every lines nvidia-smi printed of it.
type Stride struct {
	FromLine int `json:"from_line"`
	Every    int `json:"every"`
}

// maxEvery is the sparsest the samples become: past it a line is not
// kept (Dropped), which a run would need years to reach.
const maxEvery = 1 << 20

// keeper halves the rate at which lines are kept each time the kept
// lines fill the next half of what is left of the cap: the first half at
// every line, the next quarter at every second line of each GPU, and so
// on. The whole phase stays sampled, more sparsely as it goes on, within
// the cap.
type keeper struct {
	max     int
	every   int
	next    int            // kept lines at which every doubles
	seen    map[string]int // lines printed, by GPU index
	strides []Stride
}

func newKeeper(max int) *keeper {
	return &keeper{max: max, every: 1, next: max / 2, seen: map[string]int{}}
}

// full says no line is kept any more, kept lines being kept so far.
func (k *keeper) full(kept int) bool { return kept >= k.max || k.every > maxEvery }

// keep says whether to keep a line, kept lines being kept so far (the
// keeper not full).
func (k *keeper) keep(line []byte, kept int) bool {
	for kept >= k.next && k.every <= maxEvery {
		k.every *= 2
		k.next += max((k.max-k.next)/2, 1)
		k.strides = append(k.strides, Stride{FromLine: kept, Every: k.every})
	}
	if k.full(kept) {
		return false
	}
	gpu := gpuField(line)
	n := k.seen[gpu]
	k.seen[gpu] = n + 1
	return n%k.every == 0
}

// gpuField is a line's second field (the GPU's index), which Parse reads.
func gpuField(line []byte) string {
	_, rest, _ := bytes.Cut(line, []byte(","))
	index, _, _ := bytes.Cut(rest, []byte(","))
	return string(bytes.TrimSpace(index))
}

// Spread sets each sample's Every from the record's strides, by the line
// it was read from.
func Spread(samples []Sample, strides []Stride) {
	for i := range samples {
		samples[i].Every = 1
		for _, s := range strides {
			if samples[i].Line >= s.FromLine {
				samples[i].Every = s.Every
			}
		}
	}
}

// stands is the time one sample of every interval stands for at most.
func (s Sample) stands(interval time.Duration) time.Duration {
	return interval * time.Duration(max(s.Every, 1))
}
