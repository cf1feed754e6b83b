package strictjson

import "strings"

// keySet is the keys of one object so far, compared ignoring case: a
// list while there are few (most objects have under a dozen), a map of
// their folded spelling beyond, so that an object of many keys costs no
// more than linear time.
type keySet struct {
	few    [maxFewKeys]string
	n      int
	folded map[string]bool
}

// maxFewKeys is where a keySet goes from its list to its map.
const maxFewKeys = 16

// add adds key; false when the set holds it already, but for its case.
func (ks *keySet) add(key string) bool {
	if ks.folded == nil {
		for _, k := range ks.few[:ks.n] {
			if strings.EqualFold(k, key) {
				return false
			}
		}
		if ks.n < maxFewKeys {
			ks.few[ks.n] = key
			ks.n++
			return true
		}
		ks.folded = map[string]bool{}
		for _, k := range ks.few {
			ks.folded[fold(k)] = true
		}
	}
	f := fold(key)
	if ks.folded[f] {
		return false
	}
	ks.folded[f] = true
	return true
}

// fold is key as one spelling of all its cases: upper, then lower case
// (the long s, say, is upper-cased to S, then lower-cased to s).
func fold(key string) string { return strings.ToLower(strings.ToUpper(key)) }
