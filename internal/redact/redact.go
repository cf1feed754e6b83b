// Package redact decides what abbench must never write in clear, and
// replaces it with a placeholder, so a reviewer sees that a secret was
// given without seeing it:
//
//   - values of variables whose names say they hold a secret: names that
//     contain TOKEN, SECRET, PASSWORD, PASSWD, KEY, CREDENTIAL, AUTH or
//     COOKIE, or have PASS or PWD as a word (MY_DB_PASS), in any case;
//     abbench's own ABBENCH_TOKEN and ABBENCH_ARM_KEYS are not secrets, nor
//     is the word TOKENS, plural: a count of a model's tokens
//     (VLLM_MAX_NUM_BATCHED_TOKENS, the knob LLM-serving A/Bs vary most),
//     never a credential, which is one token;
//   - the password of a URL (scheme://user:PASSWORD@host);
//   - every value a scenario template read with env "NAME" (a Values set),
//     wherever it appears, for it may be a secret whatever its name.
package redact

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/lazyregexp"
)

// Placeholder replaces a secret value.
const Placeholder = "[REDACTED]"

var (
	markers = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL", "AUTH", "COOKIE"}
	words   = []string{"PASS", "PWD"}
	// notSecret are abbench's own variables: a token that names a run, and
	// the list of arm keys.
	notSecret = []string{"ABBENCH_TOKEN", "ABBENCH_ARM_KEYS", "PWD", "OLDPWD"}
	// urlPassword matches the password of scheme://user:password@host.
	urlPassword = lazyregexp.New(`([A-Za-z][A-Za-z0-9+.-]*://[^/:@\s]*:)([^@\s/]+)@`)
)

// Secret reports whether the variable name holds a secret.
func Secret(name string) bool {
	upper := strings.ToUpper(name)
	if slices.Contains(notSecret, upper) {
		return false
	}
	for _, w := range strings.FieldsFunc(upper, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		if slices.Contains(words, w) {
			return true
		}
		if w == countOfTokens {
			continue
		}
		// A marker inside a word still counts (APIKEY, HFTOKEN): a name
		// wrongly taken for a secret is only redacted, a secret missed is
		// written in clear.
		for _, m := range markers {
			if strings.Contains(w, m) {
				return true
			}
		}
	}
	return false
}

// countOfTokens is the word TOKENS, plural: a number of a model's tokens.
const countOfTokens = "TOKENS"

// URL replaces the password of every URL in s.
func URL(s string) string {
	return urlPassword.ReplaceAllString(s, "${1}"+Placeholder+"@")
}

// Value returns value with secrets replaced: all of it when name holds a
// secret, else the passwords of URLs in it.
func Value(name, value string) string {
	if Secret(name) {
		return Placeholder
	}
	return URL(value)
}

// Env redacts a list of NAME=value entries.
func Env(env []string) []string {
	out := make([]string, len(env))
	for i, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			out[i] = kv
			continue
		}
		out[i] = name + "=" + Value(name, value)
	}
	return out
}

// MinValue is the shortest value a Values set redacts: a shorter one ("1",
// "on") is no secret worth the name, and replacing it everywhere would
// garble every record.
const MinValue = 4

// Values is a set of secret values, redacted wherever they appear.
type Values []string

// Add records v as a secret (ignored when shorter than MinValue).
func (vs *Values) Add(v string) {
	if len(v) >= MinValue && !slices.Contains(*vs, v) {
		*vs = append(*vs, v)
	}
}

// EnvValues names the variable by which the controller hands a process
// of abbench's own that it starts (the openai client) the values its
// templates read with env "NAME", whatever the variables or flags that
// carry them are called: a JSON list of strings. Its name holds a secret,
// so a record of the environment shows none of them.
const EnvValues = "ABBENCH_SECRET_VALUES"

// AddEnv records the value of every NAME=value entry whose name holds a
// secret (Secret), and the values listed by EnvValues: a process given its
// secrets in its environment redacts them from whatever it writes.
func (vs *Values) AddEnv(env []string) {
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !Secret(name) {
			continue
		}
		var listed []string
		if name == EnvValues && json.Unmarshal([]byte(value), &listed) == nil {
			for _, v := range listed {
				vs.Add(v)
			}
			continue
		}
		vs.Add(value)
	}
}

// In replaces every secret value in s, the longest first, and the
// passwords of URLs.
func (vs Values) In(s string) string {
	sorted := slices.Clone(vs)
	slices.SortFunc(sorted, func(a, b string) int { return len(b) - len(a) })
	for _, v := range sorted {
		s = strings.ReplaceAll(s, v, Placeholder)
	}
	return URL(s)
}

// EnvIn redacts a list of NAME=value entries by name and by value.
func (vs Values) EnvIn(env []string) []string {
	out := Env(env)
	for i, kv := range out {
		name, value, ok := strings.Cut(kv, "=")
		if ok {
			out[i] = name + "=" + vs.In(value)
		}
	}
	return out
}
