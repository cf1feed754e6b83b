// Package campaign is what abbench run does: it plans the runs of every arm
// (order and seed recorded), starts each in an allocation of its own through
// a launcher, bounds every run by the scenario's deadlines, reports progress
// as events, and collects each run's status and evidence into plan.json. It
// also holds the arm pipeline that each of those runs executes (run one arm,
// collect its evidence, write its bundle), which abbench arm calls directly,
// and the A/A calibration written from a campaign.
//
// The files it reads and writes are those of package rundir.
package campaign
