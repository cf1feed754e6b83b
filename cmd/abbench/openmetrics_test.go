package main

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// OpenMetrics 1.0's text format (github.com/OpenObservability/OpenMetrics,
// specification/OpenMetrics.md, its ABNF), as far as abbench's export
// uses it: metric families of type gauge and info, with TYPE, UNIT and
// HELP lines, samples with labels and no timestamp, "# EOF" last. A
// test-only reader: Prometheus' Go text parser (prometheus/common/expfmt)
// reads the older Prometheus format, not OpenMetrics' EOF, UNIT or info.
var (
	omName      = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	omLabelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
	omTypes     = map[string]bool{"counter": true, "gauge": true, "histogram": true, "gaugehistogram": true, "stateset": true, "info": true, "summary": true, "unknown": true}
)

// omFamily is the family whose samples follow.
type omFamily struct {
	name, typ, unit string
	help, samples   bool
}

// parseOpenMetrics returns each sample by its name and label set as
// written; an error names the line that breaks the format.
func parseOpenMetrics(data []byte) (map[string]float64, error) {
	if !bytes.HasSuffix(data, []byte("# EOF\n")) {
		return nil, fmt.Errorf(`the exposition does not end with "# EOF" and a line feed`)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "# EOF\n"), "\n")
	lines = lines[:len(lines)-1] // the empty string after the last line feed
	samples := map[string]float64{}
	seen := map[string]bool{}
	var fam *omFamily
	for i, line := range lines {
		var err error
		if strings.HasPrefix(line, "#") {
			fam, err = omMetadata(line, fam, seen)
		} else {
			err = omSample(line, fam, samples)
		}
		if err != nil {
			return nil, fmt.Errorf("line %d %q: %w", i+1, line, err)
		}
	}
	return samples, nil
}

// omMetadata reads a TYPE, UNIT or HELP line: a new family's TYPE starts
// it (a family seen before may not come back), the others describe the
// current one before its samples, once each.
func omMetadata(line string, fam *omFamily, seen map[string]bool) (*omFamily, error) {
	f := strings.SplitN(line, " ", 4)
	if len(f) < 4 || f[0] != "#" {
		return nil, fmt.Errorf("not a TYPE, UNIT or HELP line")
	}
	if !omName.MatchString(f[2]) {
		return nil, fmt.Errorf("family name %q", f[2])
	}
	switch f[1] {
	case "TYPE":
		if seen[f[2]] || !omTypes[f[3]] {
			return nil, fmt.Errorf("family %q seen before, or type %q unknown", f[2], f[3])
		}
		seen[f[2]] = true
		return &omFamily{name: f[2], typ: f[3]}, nil
	case "UNIT":
		if fam == nil || fam.name != f[2] || fam.unit != "" || fam.samples || !strings.HasSuffix(f[2], "_"+f[3]) {
			return nil, fmt.Errorf("a UNIT out of place, twice, or not its family name's suffix")
		}
		fam.unit = f[3]
	case "HELP":
		if fam == nil || fam.name != f[2] || fam.help || fam.samples {
			return nil, fmt.Errorf("a HELP out of place or twice")
		}
		fam.help = true
	default:
		return nil, fmt.Errorf("unknown metadata %q", f[1])
	}
	return fam, nil
}

// omSample reads NAME{LABELS} VALUE of the current family: a gauge's
// samples are named as it, an info's NAME_info with the value 1.
func omSample(line string, fam *omFamily, samples map[string]float64) error {
	if fam == nil {
		return fmt.Errorf("a sample before any TYPE")
	}
	fam.samples = true
	sp := strings.LastIndexByte(line, ' ')
	if sp < 0 {
		return fmt.Errorf("no value")
	}
	key, num := line[:sp], line[sp+1:]
	name, labels, _ := strings.Cut(key, "{")
	want := fam.name
	if fam.typ == "info" {
		want += "_info"
	}
	if name != want {
		return fmt.Errorf("sample %q of family %q (%s)", name, fam.name, fam.typ)
	}
	if labels != "" {
		if err := omLabels(strings.TrimSuffix(labels, "}")); err != nil || !strings.HasSuffix(labels, "}") {
			return fmt.Errorf("labels: %v", err)
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || strings.ContainsAny(num, "_xXpP") {
		return fmt.Errorf("value %q", num)
	}
	if fam.typ == "info" && v != 1 {
		return fmt.Errorf("an info sample's value is 1")
	}
	if _, dup := samples[key]; dup {
		return fmt.Errorf("a label set twice")
	}
	samples[key] = v
	return nil
}

// omLabels reads name="value" pairs, comma-separated, each value escaped
// with \\, \" and \n only, each name once.
func omLabels(s string) error {
	names := map[string]bool{}
	for s != "" {
		name, rest, ok := strings.Cut(s, `="`)
		if !ok || !omLabelName.MatchString(name) || names[name] {
			return fmt.Errorf("label name %q (or no =\")", name)
		}
		names[name] = true
		i := 0
		for ; i < len(rest) && rest[i] != '"'; i++ {
			if rest[i] == '\n' {
				return fmt.Errorf("a raw line feed in %s", name)
			}
			if rest[i] == '\\' {
				if i+1 >= len(rest) || !strings.ContainsRune(`\"n`, rune(rest[i+1])) {
					return fmt.Errorf("bad escape in %s", name)
				}
				i++
			}
		}
		if i >= len(rest) {
			return fmt.Errorf("unterminated value of %s", name)
		}
		s = rest[i+1:]
		if s != "" {
			if s[0] != ',' {
				return fmt.Errorf("no comma after %s", name)
			}
			s = s[1:]
		}
	}
	return nil
}
