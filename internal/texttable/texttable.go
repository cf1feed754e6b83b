// Package texttable draws the plain-text tables of abbench's reports, in
// one style everywhere:
//
//	+----------+---+
//	| arm      | n |
//	+----------+---+
//	| async    | 5 |
//	| blocking | 5 |
//	+----------+---+
package texttable

import (
	"bufio"
	"io"
	"strings"

	"golang.org/x/text/width"

	"github.com/abbench/abbench/internal/textout"
)

// Write draws a plain-text table of header and rows to w. A cell is
// trimmed, its tabs become four spaces, and its lines are lines of its
// row; a short row (or header) is padded with empty cells. Columns are as
// wide as their widest line on a terminal: an East Asian wide character
// takes two columns.
func Write(w io.Writer, header []string, rows [][]string) error {
	table := append([][]string{header}, rows...)
	cols := 0
	for _, r := range table {
		cols = max(cols, len(r))
	}
	cells := make([][][]string, len(table)) // row, column, line
	widths := make([]int, cols)
	for i, r := range table {
		cells[i] = make([][]string, cols)
		for c := range cols {
			text := ""
			if c < len(r) {
				text = r[c]
			}
			cells[i][c] = cellLines(text)
			for _, line := range cells[i][c] {
				widths[c] = max(widths[c], displayWidth(line))
			}
		}
	}
	var border strings.Builder
	border.WriteString("+")
	for _, n := range widths {
		border.WriteString(strings.Repeat("-", n+2) + "+")
	}
	border.WriteString("\n")
	out := bufio.NewWriter(w)
	out.WriteString(border.String())
	for i, r := range cells {
		writeRow(out, r, widths)
		if i == 0 || i == len(cells)-1 {
			out.WriteString(border.String())
		}
	}
	return out.Flush()
}

// cellLines is a cell's text as the lines it is drawn in, its control
// bytes escaped (textout.Escape) before its width is taken.
func cellLines(text string) []string {
	text = textout.Escape(strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n")))
	return strings.Split(strings.ReplaceAll(text, "\t", "    "), "\n")
}

// writeRow draws one row, as many lines high as its tallest cell.
func writeRow(out *bufio.Writer, row [][]string, widths []int) {
	height := 1
	for _, lines := range row {
		height = max(height, len(lines))
	}
	for l := range height {
		out.WriteString("|")
		for c, lines := range row {
			line := ""
			if l < len(lines) {
				line = lines[l]
			}
			out.WriteString(" " + line + strings.Repeat(" ", widths[c]-displayWidth(line)) + " |")
		}
		out.WriteString("\n")
	}
}

// displayWidth is how many terminal columns s takes: two for an East
// Asian wide or fullwidth character, one for any other.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		switch width.LookupRune(r).Kind() {
		case width.EastAsianWide, width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}
