package texttable

import (
	"strings"
	"testing"
)

// The style every report shares: borders above and below the header and
// at the end, a cell's lines as lines of its row, a short row padded,
// cells trimmed, and a wide character two columns wide.
func TestWrite(t *testing.T) {
	var b strings.Builder
	err := Write(&b, []string{"arm", "n", "note"}, [][]string{
		{"async", "5", "  two\nlines"},
		{"blocking"},
		{"中文", "1", "a\tb"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `+----------+---+--------+
| arm      | n | note   |
+----------+---+--------+
| async    | 5 | two    |
|          |   | lines  |
| blocking |   |        |
| 中文     | 1 | a    b |
+----------+---+--------+
`
	if b.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWriteHeaderOnly(t *testing.T) {
	var b strings.Builder
	if err := Write(&b, []string{"run index", "arm"}, nil); err != nil {
		t.Fatal(err)
	}
	if want := "+-----------+-----+\n| run index | arm |\n+-----------+-----+\n"; b.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
