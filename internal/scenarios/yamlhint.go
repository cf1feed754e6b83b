package scenarios

import (
	"strings"

	"github.com/abbench/abbench/internal/suggest"
)

// yamlSyntax are yaml.v3's messages for a line that does not fit the
// structure around it, which is nearly always its indentation.
var yamlSyntax = []string{
	"mapping values are not allowed in this context",
	"did not find expected key",
	"could not find expected ':'",
	"did not find expected '-' indicator",
	"found character that cannot start any token",
}

// indentationHint says what to look at when yaml.v3 found a line out of
// place: its message names the parser's state, not the fix.
func indentationHint(msg string) string {
	for _, s := range yamlSyntax {
		if strings.Contains(msg, s) {
			return msg + ": check the indentation of this line and the one before (YAML nests by spaces, never tabs: a key belongs to the mapping it lines up with)"
		}
	}
	return msg
}

// didYouMean is the allowed key closest to an unknown one, within two
// edits (a typo), or "".
func didYouMean(key string, allowed []string) string {
	return suggest.Closest(strings.ToLower(key), allowed, 2)
}
