// Package scenarios is the scenario file: its schema, the strict loader
// that refuses an unknown or mistyped key naming its line, validation
// with its warnings, the matched digest two arms' runs must share (every
// key but the arms' declared differences), the one constructor of a
// template's data, and the diff of two arms' keys.
package scenarios
