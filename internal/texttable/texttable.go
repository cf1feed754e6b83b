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

	"github.com/abbench/abbench/internal/termwidth"
	"github.com/abbench/abbench/internal/textout"
)

// Write draws a plain-text table of header and rows to w. A cell is
// trimmed, its tabs become four spaces, and its lines are lines of its
// row; a short row (or header) is padded with empty cells. Columns are as
// wide as their widest line on a terminal: an East Asian wide character
// takes two columns. A w that says its width (termwidth.Sized) gets a
// table that fits it: the widest columns narrowed, their cells wrapped
// between words; where even that cannot fit (a narrow terminal), each row
// is drawn as a record of its own, a line a column, so that no number is
// cut in two.
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
	words := longestWords(cells, cols)
	if width := termwidth.Of(w); width > 0 && !wordsFit(widths, words, width) {
		return writeRecords(w, header, rows, width)
	}
	if fit(widths, words, termwidth.Of(w)) {
		for _, r := range cells {
			for c := range r {
				r[c] = wrapLines(r[c], widths[c])
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

// minColumn is the narrowest a column is made to fit a table to a width;
// maxWord is the longest word kept whole while a column narrows: a longer
// one (a path, a digest) is cut, as the words of a shorter one are not
// while another column can give.
const minColumn, maxWord = 4, 16

// fit narrows the widest columns until a table of widths takes at most
// cols columns (0: no limit): first none below its longest word (words
// of at most maxWord), then none below minColumn. It says whether it
// narrowed any.
func fit(widths, words []int, cols int) bool {
	if cols <= 0 {
		return false
	}
	total := 1 // the left border; each column adds its width, two spaces and a border
	for _, n := range widths {
		total += n + 3
	}
	narrowed := false
	for _, floor := range [][]int{words, nil} {
		for ; total > cols; total-- {
			widest := -1
			for c, n := range widths {
				least := minColumn
				if floor != nil {
					least = max(least, min(floor[c], maxWord))
				}
				if n > least && (widest < 0 || n > widths[widest]) {
					widest = c
				}
			}
			if widest < 0 {
				break
			}
			widths[widest]--
			narrowed = true
		}
	}
	return narrowed
}

// longestWords is each column's longest word: where it can, a column is
// narrowed no further, so that wrapping breaks its cells between words.
func longestWords(cells [][][]string, cols int) []int {
	words := make([]int, cols)
	for _, r := range cells {
		for c, lines := range r {
			for _, l := range lines {
				for _, word := range strings.Fields(l) {
					words[c] = max(words[c], displayWidth(word))
				}
			}
		}
	}
	return words
}

// wrapLines wraps each of a cell's lines to cols columns.
func wrapLines(lines []string, cols int) []string {
	var out []string
	for _, l := range lines {
		out = append(out, termwidth.Wrap(l, cols, "")...)
	}
	return out
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

// displayWidth is how many terminal columns s takes.
func displayWidth(s string) int { return termwidth.Display(s) }

// wholeWord is the longest word a grid must keep whole, or be drawn as
// records: a report's numbers ("28,613", "0.000338", "[+39.02%,") and
// verdicts are at most this long, so none of them is cut in two.
const wholeWord = 12

// wordsFit says whether a table of widths fits cols columns with no
// column narrowed below its longest word, or wholeWord where that is
// longer.
func wordsFit(widths, words []int, cols int) bool {
	total := 1
	for c, n := range widths {
		total += min(n, max(minColumn, min(words[c], wholeWord))) + 3
	}
	return total <= cols
}

// writeRecords draws each row as a record: a line a column with a value,
// its header then its value, the values aligned and wrapped to cols, a
// blank line between records.
func writeRecords(w io.Writer, header []string, rows [][]string, cols int) error {
	keyWidth := 0
	for _, h := range header {
		keyWidth = max(keyWidth, displayWidth(strings.Join(cellLines(h), " ")))
	}
	keyWidth = min(keyWidth, max(cols/3, minColumn))
	indent := strings.Repeat(" ", keyWidth+2)
	out := bufio.NewWriter(w)
	for i, r := range rows {
		if i > 0 {
			out.WriteString("\n")
		}
		for c, h := range header {
			key := strings.Join(cellLines(h), " ")
			value := ""
			if c < len(r) {
				value = strings.Join(cellLines(r[c]), " ")
			}
			if value == "" {
				continue // a record says what its row has
			}
			line := key + strings.Repeat(" ", max(keyWidth-displayWidth(key), 0)) + "  " + value
			for _, l := range termwidth.Wrap(strings.TrimRight(line, " "), cols, indent) {
				out.WriteString(l + "\n")
			}
		}
	}
	return out.Flush()
}
