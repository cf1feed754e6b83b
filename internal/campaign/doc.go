// Package campaign is what abbench run does: it plans the runs of every arm
// (order and seed recorded), starts each in an allocation of its own through
// a launcher, bounds every run by the scenario's deadlines, takes a
// sequential campaign's looks, reports progress as events, and collects each
// run's status and evidence into plan.json; and it derives the A/A
// calibration of a calibration campaign. What each run executes in its
// allocation is package armpipeline (abbench arm).
//
// The files it reads and writes are those of package rundir.
package campaign
