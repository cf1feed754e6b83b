package history

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/parallel"
)

// Series is one scenario's arm's metric over time: its runs in the order
// they started, the change points found in their values, and what else
// changed along the way (hardware, the matched digest) that would explain
// a step without the system under test.
type Series struct {
	Scenario     string        `json:"scenario"`
	Cell         string        `json:"cell,omitempty"` // a sweep's cell
	Arm          string        `json:"arm"`
	Metric       string        `json:"metric"`
	HigherBetter bool          `json:"higher_is_better"`
	Points       []Entry       `json:"points"`
	Changes      []ChangePoint `json:"changes"`
	// Confounds say where the hardware class or the matched digest
	// changed: a change point there measures that, not the system.
	Confounds []string `json:"confounds"`
}

// Filter picks series; empty fields match everything.
type Filter struct {
	Scenario, Arm, Metric string
}

func (f Filter) match(e Entry) bool {
	return (f.Scenario == "" || f.Scenario == e.Scenario) && (f.Arm == "" || f.Arm == e.Arm) && (f.Metric == "" || f.Metric == e.Metric)
}

// BuildSeries groups the run entries into series (sorted by scenario,
// cell in its matrix's order, arm, metric) and finds each one's change points with d.
func BuildSeries(entries []Entry, f Filter, d Detector) []Series {
	byKey := map[[4]string]*Series{}
	var keys [][4]string
	firstSeen := map[string]int{}
	for _, e := range entries {
		if e.Kind != KindRun || e.Value == nil || !f.match(e) {
			continue
		}
		seeValues(e.Cell, firstSeen)
		k := [4]string{e.Scenario, e.Cell, e.Arm, e.Metric}
		s := byKey[k]
		if s == nil {
			s = &Series{Scenario: e.Scenario, Cell: e.Cell, Arm: e.Arm, Metric: e.Metric, HigherBetter: e.HigherBetter, Changes: []ChangePoint{}, Confounds: []string{}}
			byKey[k] = s
			keys = append(keys, k)
		}
		s.Points = append(s.Points, e)
	}
	slices.SortFunc(keys, func(a, b [4]string) int {
		return cmp.Or(strings.Compare(a[0], b[0]), cellOrder(a[1], b[1], firstSeen), strings.Compare(a[2], b[2]), strings.Compare(a[3], b[3]))
	})
	out := make([]Series, 0, len(keys))
	valuesOf := make([][]float64, 0, len(keys))
	for _, k := range keys {
		s := byKey[k]
		slices.SortStableFunc(s.Points, func(a, b Entry) int { return a.Time.Compare(b.Time) })
		values := make([]float64, len(s.Points))
		for i, p := range s.Points {
			values[i] = *p.Value
			if i == 0 {
				continue
			}
			prev := s.Points[i-1]
			if p.Machine != prev.Machine {
				s.Confounds = append(s.Confounds, fmt.Sprintf("point %d: the hardware changed (%s, was %s)", i, orNone(p.Machine), orNone(prev.Machine)))
			}
			if p.MatchedDigest != prev.MatchedDigest {
				s.Confounds = append(s.Confounds, fmt.Sprintf("point %d: the matched digest changed (the scenario, workload or harness: %.12s, was %.12s)", i, p.MatchedDigest, prev.MatchedDigest))
			}
		}
		out = append(out, *s)
		valuesOf = append(valuesOf, values)
	}
	findEach(out, valuesOf, d)
	return out
}

// findEach finds each series' change points from its values, the series
// spread over the cores (each search is seeded alone, so the result is the
// same however they are spread).
func findEach(series []Series, valuesOf [][]float64, d Detector) {
	parallel.Each(len(series), func(i int) {
		if found := d.Find(valuesOf[i]); found != nil {
			series[i].Changes = found
		}
	})
}

func orNone(s string) string {
	if s == "" {
		return "not recorded"
	}
	return s
}

// Regression says whether a change point moved the metric the wrong way.
func (s Series) Regression(c ChangePoint) bool {
	return (c.After < c.Before) == s.HigherBetter
}
