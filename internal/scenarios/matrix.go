package scenarios

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Matrix is a scenario's matrix: section, a sweep. Its axes, in file
// order, each with its values in file order, expand into cells (Cells):
// the cartesian product, each cell its own matched A/B. A scenario
// without one is a single comparison, as it always was.
type Matrix []Axis

// Axis is one named axis of a matrix and its values, as the file spells
// them.
type Axis struct {
	Name   string   `json:"axis"`
	Values []string `json:"values"`
}

// UnmarshalYAML reads a mapping of axis names to lists of scalars,
// keeping the file's order (a Go map would lose it, and the order names
// the cells and orders the plan).
func (m *Matrix) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: matrix is a mapping of axis names to lists of values, for example matrix: {concurrency: [8, 32, 128]}", n.Line)
	}
	out := Matrix{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, list := n.Content[i], n.Content[i+1]
		if list.Kind != yaml.SequenceNode {
			return fmt.Errorf("line %d: matrix axis %q: give a list of values, for example %s: [8, 32, 128]", list.Line, key.Value, key.Value)
		}
		a := Axis{Name: key.Value}
		for _, v := range list.Content {
			if v.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: matrix axis %q: each value is a scalar (a number or a string)", v.Line, key.Value)
			}
			a.Values = append(a.Values, v.Value)
		}
		out = append(out, a)
	}
	*m = out
	return nil
}

// MarshalJSON keeps the axes in order: the canonical encoding hashes
// them (a cell's one value per axis is part of its matched digest).
func (m Matrix) MarshalJSON() ([]byte, error) {
	if len(m) == 0 {
		return []byte("null"), nil
	}
	return json.Marshal([]Axis(m))
}

// Cell is one cell of a matrix: one value of every axis.
type Cell struct {
	// Name is AXIS=VALUE of every axis, joined by ",", in axis order
	// (concurrency=32, or concurrency=32,rounds=2): it names the cell in
	// plans, reports and history series.
	Name string `json:"name"`
	// Values are the cell's value of each axis, by axis name.
	Values map[string]string `json:"values"`
}

// Cells are the matrix's cells, the cartesian product of its axes: the
// first axis varies slowest, each axis's values in file order (as nested
// loops over the axes in file order). Nil without a matrix.
func (m Matrix) Cells() []Cell {
	if len(m) == 0 {
		return nil
	}
	cells := []Cell{{Values: map[string]string{}}}
	for _, a := range m {
		var next []Cell
		for _, c := range cells {
			for _, v := range a.Values {
				vals := make(map[string]string, len(c.Values)+1)
				for k, x := range c.Values {
					vals[k] = x
				}
				vals[a.Name] = v
				next = append(next, Cell{Name: joinCell(c.Name, a.Name+"="+v), Values: vals})
			}
		}
		cells = next
	}
	return cells
}

func joinCell(prefix, part string) string {
	if prefix == "" {
		return part
	}
	return prefix + "," + part
}

// Cells are the scenario's cells (nil without a matrix).
func (s *Scenario) Cells() []Cell { return s.Matrix.Cells() }

// IsSweep says whether the scenario has more than one cell: it is then
// run, compared and stored cell by cell, never as one scenario.
func (s *Scenario) IsSweep() bool { return s.Matrix.size() > 1 }

// size is the number of cells, counted without making them (a matrix
// validation refuses may have very many).
func (m Matrix) size() int {
	if len(m) == 0 {
		return 0
	}
	n := 1
	for _, a := range m {
		n *= len(a.Values)
		if n > MaxCells {
			return MaxCells + 1
		}
	}
	return n
}

// CellName is the name of the scenario's cell when it is one cell of a
// sweep (ForCell made it, or its matrix has one value per axis), "" when
// it has no matrix.
func (s *Scenario) CellName() string {
	if s.Matrix.size() != 1 {
		return ""
	}
	return s.Cells()[0].Name
}

// CellNames lists the cells' names, in cell order.
func (s *Scenario) CellNames() []string {
	var names []string
	for _, c := range s.Cells() {
		names = append(names, c.Name)
	}
	return names
}

// UnknownCellError says a scenario has no cell of the name asked for.
type UnknownCellError struct {
	File, Cell string
	Cells      []string
}

func (e *UnknownCellError) Error() string {
	if e.Cell == "" {
		return fmt.Sprintf("%s sweeps a matrix: name the cell to run (its cells: %s)", e.File, strings.Join(e.Cells, " "))
	}
	if len(e.Cells) == 0 {
		return fmt.Sprintf("cell %q: %s has no matrix: section, so it has no cells", e.Cell, e.File)
	}
	return fmt.Sprintf("cell %q is not a cell of %s (its cells: %s)", e.Cell, e.File, strings.Join(e.Cells, " "))
}

// ForCell is the scenario of one cell: its matrix narrowed to the cell's
// value of every axis (so the cell's matched digest is its own, and
// {{.Matrix.AXIS}} is the cell's value), and each axis that names a
// workload key set in the workload (so {{.Workload.Concurrency}} and the
// workload digest follow the cell). Validation has checked every value.
func (s *Scenario) ForCell(name string) (*Scenario, error) {
	cells := s.Cells()
	i := slices.IndexFunc(cells, func(c Cell) bool { return c.Name == name })
	if i < 0 {
		return nil, &UnknownCellError{File: s.File, Cell: name, Cells: s.CellNames()}
	}
	c := *s
	c.Matrix = make(Matrix, len(s.Matrix))
	for j, a := range s.Matrix {
		v := cells[i].Values[a.Name]
		c.Matrix[j] = Axis{Name: a.Name, Values: []string{v}}
		if set, ok := workloadAxes[a.Name]; ok {
			if err := set(&c.Workload, v); err != nil {
				return nil, fmt.Errorf("%s: matrix axis %s: %w", s.File, a.Name, err)
			}
		}
	}
	if c.Workload.Rate > 0 && c.Workload.Burstiness == 0 {
		c.Workload.Burstiness = 1 // as ApplyDefaults does for a rate the file gives
	}
	return &c, nil
}

// cellValues are the values {{.Matrix.AXIS}} reads: the cell's, or for
// a sweep's whole scenario its first cell's (validation's sample only:
// nothing runs the whole scenario of a sweep).
func (s *Scenario) cellValues() map[string]string {
	first := map[string]string{}
	for _, a := range s.Matrix {
		if len(a.Values) > 0 {
			first[a.Name] = a.Values[0]
		}
	}
	return first
}
