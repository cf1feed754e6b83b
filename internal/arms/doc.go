// Package arms is the controller of one arm run inside one allocation.
//
// It guarantees, for every run:
//   - a fresh launch token, and a coordination namespace named by it, from
//     which alone coordination files are read: a rerun into the same output
//     directory never reads an earlier attempt's files;
//   - every rank's environment is built deliberately (documented base,
//     scenario, role, arm) and the arm's keys reach exactly the ranks of roles
//     that take them;
//   - every rank registers, through the rank wrapper, the arm values exactly
//     as its process received them, and before any client traffic the
//     controller requires a registration from every expected rank with the
//     exact values and a mode line in every rank's log that agrees;
//   - every phase has a deadline; a rank that exits unexpectedly aborts the
//     run at once; teardown is SIGTERM to every process group, a bounded
//     grace, SIGKILL, then a sweep of any process carrying the token;
//   - when Run returns, for any reason, no process of the run is alive and
//     the run directory holds every log, registration and a status.
//
// Ranks start and stop through a rank driver (arms/ranks), one per role:
// the container driver for a role with container:, the driver --ranks
// names for every other (rankDrivers, drivers.go: local, srun,
// kubernetes). The controller judges every rank by the typed exit its
// driver reports, never by the driver's own state.
package arms
