package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/lazyregexp"
)

// MaxCells bounds a matrix's cells: each cell is a campaign's worth of
// runs, and Holm's correction over more cells leaves little power.
const MaxCells = 64

// axisPattern is an axis name a template can reach as {{.Matrix.NAME}}.
var axisPattern = lazyregexp.New(`^[a-z][a-z0-9_]{0,62}$`)

// workloadAxes are the workload keys an axis may name: the cell's value
// sets the key in the cell's workload, parsed as the key is.
var workloadAxes = map[string]func(w *Workload, v string) error{
	"requests":    func(w *Workload, v string) error { return setCount((*int)(&w.Requests), v) },
	"concurrency": func(w *Workload, v string) error { return setCount(&w.Concurrency, v) },
	"rounds":      func(w *Workload, v string) error { return setCount(&w.Rounds, v) },
	"rate": func(w *Workload, v string) error {
		return setFloat(&w.Rate, v, func(f float64) bool { return f >= 0 }, "a rate of 0 (a closed loop) or more")
	},
	"burstiness": func(w *Workload, v string) error {
		return setFloat(&w.Burstiness, v, func(f float64) bool { return f > 0 }, "a gamma shape above 0")
	},
	"seed": func(w *Workload, v string) error {
		u, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not a seed (a whole number of 0 or more)", v)
		}
		w.Seed = u
		return nil
	},
}

// fixedWorkloadKeys are workload keys no axis may sweep: they name what
// is sent and how it is hashed, which every cell shares.
var fixedWorkloadKeys = []string{"prompts", "field", "algorithm"}

// reservedAxes name the comparison itself, never a cell's setting.
var reservedAxes = []string{"arm", "arms", "baseline", "build"}

func setCount(dst *int, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return fmt.Errorf("%q: give a whole number of at least 1", v)
	}
	*dst = n
	return nil
}

func setFloat(dst *float64, v string, ok func(float64) bool, want string) error {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !ok(f) {
		return fmt.Errorf("%q: give %s", v, want)
	}
	*dst = f
	return nil
}

// matrix checks the matrix: axis names a template reaches, never an arm
// key nor a key every cell must share, values that parse as the workload
// key they set, no value twice on an axis, at most MaxCells cells.
func (v *validator) matrix() {
	m := v.s.Matrix
	if m == nil {
		return
	}
	if len(m) == 0 {
		v.atKey(p("matrix"), "matrix has no axes: give at least one, for example matrix: {concurrency: [8, 32, 128]}, or leave matrix out")
		return
	}
	armKeys := v.s.ArmKeys()
	for _, a := range m {
		v.axisName(a.Name, armKeys)
		v.axisValues(a)
	}
	if m.size() > MaxCells {
		v.atKey(p("matrix"), "the matrix has more than %d cells: sweep fewer values (each cell is a campaign's worth of runs)", MaxCells)
	}
}

func (v *validator) axisName(name string, armKeys []string) {
	path := p("matrix", name)
	switch {
	case !axisPattern.MatchString(name):
		v.atKey(path, "matrix axis %q: use a lower-case letter, then letters, digits and '_' (templates read it as {{.Matrix.%s}})", name, strings.ToLower(name))
	case slices.ContainsFunc(armKeys, func(k string) bool { return strings.EqualFold(k, name) }):
		v.atKey(path, "matrix axis %q names the arm key %s: an axis never changes an arm (arms differ in their declared keys alone); sweep another setting, or make the values arms of their own", name, strings.ToUpper(name))
	case slices.Contains(reservedAxes, name):
		v.atKey(path, "matrix axis %q names the comparison itself, not a setting: arms are declared under arms:, the baseline by baseline:", name)
	case slices.Contains(fixedWorkloadKeys, name):
		v.atKey(path, "matrix axis %q: workload.%s is shared by every cell (what is sent, and how it is hashed); sweep requests, concurrency, rounds, rate, burstiness or seed, or write one scenario per %s", name, name, name)
	}
}

func (v *validator) axisValues(a Axis) {
	if len(a.Values) == 0 {
		v.at(p("matrix", a.Name), "matrix axis %q has no values: give at least one", a.Name)
		return
	}
	seen := map[string]bool{}
	for i, val := range a.Values {
		path := p("matrix", a.Name, i)
		if seen[val] {
			v.at(path, "matrix axis %q gives %q twice: two cells would be one", a.Name, val)
		}
		seen[val] = true
		if val == "" || strings.ContainsAny(val, ",= \t\n") {
			v.at(path, "matrix axis %q: value %q: a value names its cell (%s=VALUE), so it may not be empty nor hold ',', '=' or space", a.Name, val, a.Name)
			continue
		}
		if set, ok := workloadAxes[a.Name]; ok {
			w := v.s.Workload
			if err := set(&w, val); err != nil {
				v.at(path, "matrix axis %q sets workload.%s: %v", a.Name, a.Name, err)
			} else if n := v.s.PromptsDigest.Count; a.Name == "requests" && n > 0 && uint64(w.Requests) > n {
				v.at(path, "matrix axis requests: %d, but the prompts file holds %d prompts", w.Requests, n)
			}
		}
	}
}

// SweepCell is the scenario to run for cell ("" for none): the cell of
// a sweep (which needs one), the scenario itself without a matrix.
func (s *Scenario) SweepCell(cell string) (*Scenario, error) {
	switch {
	case cell != "":
		return s.ForCell(cell)
	case s.IsSweep():
		return nil, &UnknownCellError{File: s.File, Cells: s.CellNames(), Cell: ""}
	case len(s.Matrix) > 0:
		return s.ForCell(s.CellName())
	}
	return s, nil
}
