// Package render draws abbench's reports for a person: a campaign's
// progress and its summary table, an arm run, a calibration, and what a
// sweep of dead controllers did. The packages that make these hand over
// data; how it reads on a terminal is decided here alone.
package render
