// Command genhistory writes a history store of the size a nightly job with
// a few dozen series reaches in a few years, for the history benchmark:
// SERIES series (a scenario's arm's metric) of POINTS runs each, one run a
// night, written by history.Append in the store's real format. Every other
// series steps by 3% (up or down, alternately) at a point drawn from its
// middle; the rest are flat. Values are 1% Gaussian noise around the
// series' level.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/abbench/abbench/internal/history"
	"github.com/abbench/abbench/internal/scenarios"
)

func main() {
	store := flag.String("store", "", "the store to write (required; must not exist)")
	nSeries := flag.Int("series", 100, "series")
	points := flag.Int("points", 1000, "runs a series")
	seed := flag.Uint64("seed", 1, "seed of the values and the steps")
	flag.Parse()
	if *store == "" || *nSeries < 1 || *points < 1 {
		fmt.Fprintln(os.Stderr, "usage: genhistory -store FILE [-series N] [-points N] [-seed N]")
		os.Exit(2)
	}
	if _, err := os.Stat(*store); err == nil {
		fmt.Fprintf(os.Stderr, "genhistory: %s exists; give a new path\n", *store)
		os.Exit(2)
	}
	rng := rand.New(rand.NewPCG(*seed, 7))
	start := time.Date(2024, 1, 1, 2, 0, 0, 0, time.UTC)
	var entries []history.Entry
	for s := range *nSeries {
		level := 100 + float64(s)
		step, at := 0.0, *points
		if s%2 == 0 {
			step, at = 0.03, *points/10+rng.IntN(*points*8/10+1)
			if s%4 == 0 {
				step = -step
			}
		}
		for i := range *points {
			v := level * (1 + 0.01*rng.NormFloat64())
			if i >= at {
				v *= 1 + step
			}
			t := start.Add(time.Duration(i) * 24 * time.Hour)
			entries = append(entries, history.Entry{
				Kind: history.KindRun, Key: token(s, i), Added: t.Add(time.Hour), Time: t,
				Scenario: fmt.Sprintf("nightly-%02d", s/4), Arm: fmt.Sprintf("arm-%d", s%4),
				MatchedDigest: digest(s / 4),
				Metric:        scenarios.DefaultMetric, HigherBetter: true,
				Machine: "1x AMD EPYC 9654 96-Core Processor + 8x NVIDIA H100 80GB HBM3",
				Source:  token(-3, i)[:40], Signed: true, Value: &v,
			})
		}
	}
	if _, _, err := history.Append(*store, entries); err != nil {
		fmt.Fprintln(os.Stderr, "genhistory:", err)
		os.Exit(1)
	}
}

// token is a run token's shape: 32 hex digits, distinct per series and run.
func token(series, run int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%d/%d", series, run))
	return hex.EncodeToString(sum[:16]) + hex.EncodeToString(sum[16:])[:8]
}

// digest is a matched digest's shape, one per scenario.
func digest(scenario int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "scenario %d", scenario))
	return "sha256:" + hex.EncodeToString(sum[:])
}
