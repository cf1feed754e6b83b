// Package redact decides which environment values are secrets: those whose
// names contain TOKEN, SECRET, PASSWORD, PASSWD, KEY, CREDENTIAL, AUTH or
// COOKIE, in any case. Their names are kept and their values replaced, so a
// reviewer sees that a secret was given without seeing it.
package redact

import "strings"

// Placeholder replaces a secret value.
const Placeholder = "[REDACTED]"

var markers = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL", "AUTH", "COOKIE"}

// Secret reports whether the variable name holds a secret.
func Secret(name string) bool {
	upper := strings.ToUpper(name)
	for _, m := range markers {
		if strings.Contains(upper, m) {
			return true
		}
	}
	return false
}

// Value returns value, or Placeholder when name holds a secret.
func Value(name, value string) string {
	if Secret(name) {
		return Placeholder
	}
	return value
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
