package records

import (
	"regexp"
	"strconv"
)

// parseRegex applies a scenario's pattern: named groups output_throughput
// (required), and optionally completed, failed, requested,
// request_throughput, total_token_throughput, duration; the last match wins.
func (r *Record) parseRegex(data []byte, spec Spec) {
	re, err := regexp.Compile(spec.Pattern)
	if err != nil {
		r.unreadable("pattern: %v", err)
		return
	}
	all := re.FindAllSubmatch(data, -1)
	if len(all) == 0 {
		r.unreadable("the pattern matches nothing in the record")
		return
	}
	m := all[len(all)-1]
	for i, name := range re.SubexpNames() {
		if name == "" || m[i] == nil {
			continue
		}
		v, err := strconv.ParseFloat(string(m[i]), 64)
		if err != nil {
			r.problem("group %s: %q is not a number", name, m[i])
			continue
		}
		switch name {
		case "completed", "failed", "requested":
			n, ok := r.count(name, v)
			switch {
			case !ok:
			case name == "completed":
				r.Completed = n
			case name == "failed":
				r.Failed = n
			default:
				r.Requested = n
			}
		default:
			r.Metrics[name] = v
		}
	}
}
