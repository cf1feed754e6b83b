// Package realnoise holds series of real runs, as abbench run
// --calibrate wrote them (one arm's runs in the order they ran), and
// draws the validation suite's noise from them: consecutive runs in
// blocks, so the serial dependence real runs show (a lag-1
// autocorrelation, slow drift) reaches the simulated campaigns as it
// reached the real ones, which no parametric model promises.
//
// Each file is abbench's own calibration.json, unedited; how it was made
// is in the README beside it.
package realnoise

import (
	"embed"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
)

//go:embed *.calibration.json
var files embed.FS

// BlockRuns is how many consecutive real runs a block holds. It is a
// multiple of four, so a simulated pair (two runs) and a simulated pair
// of blocks (abba, four runs) never straddle two blocks: the joins, where
// the level of the series jumps, fall between pairs of blocks, as an
// allocation change would.
const BlockRuns = 12

// Series is a real series: the log of each run's value in run order,
// less their mean.
type Series struct {
	File string
	Logs []float64
}

// Load reads the embedded calibration file.
func Load(file string) (Series, error) {
	data, err := files.ReadFile(file)
	if err != nil {
		return Series{}, err
	}
	var c struct {
		Schema string    `json:"schema"`
		Values []float64 `json:"values"`
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return Series{}, fmt.Errorf("%s: %w", file, err)
	}
	if c.Schema != "abbench-calibration-v2" {
		return Series{}, fmt.Errorf("%s: schema %q, want abbench-calibration-v2", file, c.Schema)
	}
	if len(c.Values) < 4*BlockRuns {
		return Series{}, fmt.Errorf("%s: %d runs, want at least %d", file, len(c.Values), 4*BlockRuns)
	}
	s := Series{File: file, Logs: make([]float64, len(c.Values))}
	var sum float64
	for i, v := range c.Values {
		if !(v > 0) || math.IsInf(v, 0) {
			return Series{}, fmt.Errorf("%s: run %d's value %v is not a positive number", file, i+1, v)
		}
		s.Logs[i] = math.Log(v)
		sum += s.Logs[i]
	}
	mean := sum / float64(len(s.Logs))
	for i := range s.Logs {
		s.Logs[i] -= mean
	}
	return s, nil
}

// MustLoad is Load for the embedded files the suite names; a file that
// does not load is a build defect.
func MustLoad(file string) Series {
	s, err := Load(file)
	if err != nil {
		panic(err)
	}
	return s
}

// Draw is n runs' log noise: blocks of BlockRuns consecutive runs of the
// series, each from a uniformly drawn start (a moving-block bootstrap),
// the last block cut to length.
func (s Series) Draw(r *rand.Rand, n int) []float64 {
	e := make([]float64, 0, n)
	for len(e) < n {
		start := r.IntN(len(s.Logs) - BlockRuns + 1)
		take := min(BlockRuns, n-len(e))
		e = append(e, s.Logs[start:start+take]...)
	}
	return e
}
