package records

import "strings"

// metricPath names a metric and where a JSON record holds it: the keys to
// follow through nested objects.
type metricPath struct {
	name string
	path []string
}

func at(path ...string) []string { return path }

// lookup follows keys through nested JSON objects; false when a key is
// missing or a value on the way is not an object.
func lookup(v any, keys ...string) (any, bool) {
	for _, k := range keys {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = obj[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// metricsAt reads each metric of paths from obj, in the slice's order (so
// the same record gives the same problems in the same order). A metric
// that is absent or null is left out: Python clients write NaN, read as
// null, for a statistic of no request. One that is there but not a number
// is a problem naming its keys.
func (r *Record) metricsAt(obj any, paths []metricPath) {
	for _, m := range paths {
		v, ok := lookup(obj, m.path...)
		if !ok || v == nil {
			continue
		}
		if f, ok := number(v); ok {
			r.Metrics[m.name] = f
		} else {
			r.problem("%s is not a number", strings.Join(m.path, "."))
		}
	}
}

// countAt reads the whole count at keys into dst; false, leaving dst, when
// it is absent or null, or (with a problem said) not a whole number.
func (r *Record) countAt(dst *int, obj any, keys ...string) bool {
	v, ok := lookup(obj, keys...)
	if !ok || v == nil {
		return false
	}
	n, ok := r.count(strings.Join(keys, "."), v)
	if ok {
		*dst = n
	}
	return ok
}
