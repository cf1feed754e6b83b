// Package rundir is the on-disk contract between abbench's stages: every
// file and directory name of a run, the types stored in them, atomic
// reading and writing, and Resolve, which turns any path a user may pass
// into the attempts it holds. Every stage (the controller, the rank wrapper,
// the campaign, evidence, bundles, comparisons) talks to the next only
// through these files, and spells their names only through this package.
//
// It imports only the standard library and abbench's own leaf packages
// (internal/atomicfile, reason), so the rank wrapper can use it and still
// start in a millisecond.
//
// # The tree
//
// abbench run --out OUT (a campaign):
//
//	OUT/                        new or empty; claimed by plan.json
//	  plan.json                 scenario, matched digest, launcher, order, seed,
//	                            and per run: index, arm, directory, allocation,
//	                            token, the allocation's result, evidence accepted;
//	                            and what abbench run --resume holds the
//	                            campaign to (flags, scenario, binaries)
//	  run.lock                  held (flock) by the abbench run running the
//	                            campaign, naming it; a second one is refused
//	  calibration.json          with --calibrate: the A/A noise of the metric
//	  hooks/KIND-I.log          the output of the scenario's before_all and
//	                            after_all hooks, appended at every run of it
//	  runs/N-ARM/               one run, in an allocation of its own; laid out
//	                            as an abbench arm --out directory (below), plus
//	                            what its launcher writes there:
//	    controller.log          the abbench arm controller's own output
//	    job.sbatch, job_id      (Slurm) the batch script and the job's id
//	    slurm-JOB.out           (Slurm) the batch job's output
//	    kube-pod.json           (Kubernetes) the pod, its node's facts, its
//	                            image by digest and every node's facts of the
//	                            run's pods (machine.Pod), written by the
//	                            launcher once the pod's container runs, again
//	                            when a pod appears on another node
//
// abbench arm --out DIR (one arm in the current allocation):
//
//	DIR/
//	  LATEST                    the newest attempt's token, written when it starts
//	  TOKEN/                    one attempt; nothing outside it is ever read
//	    status.json             state, phase, reasons, phase times, every rank's
//	                            pid, log, log offset and inode, exit, inherited keys
//	    evidence.json           the evidence derived from the attempt's files
//	    ROLE-RANK.log           each rank's output, appended (cumulative)
//	    hooks/KIND-I.log        the output of setup hook I (before the first
//	                            role started) and teardown hook I (after the
//	                            last one stopped)
//	    bundle/                 the signed (or unsigned) evidence bundle
//	    bundle.tar.gz           with --archive: the bundle packed
//	    coord/                  the token namespace: the only place
//	                            coordination files are read from
//	      ranks/ROLE-RANK.json  registrations, written by the rank wrapper
//	      env/ROLE-RANK.json    the environment each rank was given
//	      launch/ROLE-RANK.json (srun) each rank's launch file, mode 0600,
//	                            removed at teardown
//	      offsets.json          log byte offsets recorded before the ranks started
//	      ports.json            {{.Port "NAME"}}: each name's allocated port
//	      machine.json          names the controller's host, so a rank wrapper
//	                            there leaves its facts to the controller (which
//	                            keeps them in memory: any rank can write here)
//	      machines/KEY.json     each other rank host's facts, reported by its
//	                            first rank (KEY: node-NAME under Slurm, else
//	                            host-NAME; KEY.lock claims the writing)
//	      barriers/NAME/WHO     barrier arrivals, by named participant
//	      abort                 the reasons, when the run was aborted
//	      …                     whatever the system under test publishes
//
// Outside the run directory, /tmp/abb-HASH is the attempt's {{.Scratch}}
// (Scratch names it): short enough for a unix socket, removed at teardown.
//
// A bundle directory holds evidence.json and status.json at its top, the
// scoped logs, coord/ranks/, manifest.json with its SSH signature and DSSE
// envelope (see package evidence/bundle).
package rundir
