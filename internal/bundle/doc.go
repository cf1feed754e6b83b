// Package bundle turns an arm run into signed evidence a reviewer can check
// without trusting whoever ran it, and checks such evidence: a directory
// (optionally packed as a reproducible .tar.gz) holding the evidence, the
// scenario as run, the scoped log bytes the evidence was derived from
// (verbatim, with their source and offset), the raw records, the
// registrations, the provenance, an in-toto Statement v1 manifest of every
// other file's SHA-256, and signatures over the manifest's exact bytes.
// The bundle's names and the types stored in its files are spelled once,
// in layout.go (the manifest's in statement.go), as package rundir spells
// the run directory's.
//
// A bundle is written to a temporary directory and renamed into place only
// when complete, so no crash leaves half a bundle that verifies. Write runs
// four steps: copy (the run's files into the bundle), provenance, manifest
// and sign. Verify runs named steps (Step), in order, and a failure is a
// *VerifyError naming its step and the bundle's file.
//
// # The tree
//
//	bundle/
//	  manifest.json               an in-toto Statement v1 (Statement): every
//	                              other file with its SHA-256, and a summary
//	                              predicate (Predicate)
//	  manifest.json.sig           (signed) an SSH signature over the manifest's
//	                              exact bytes, ssh-keygen -Y sign format,
//	                              namespace abbench-evidence
//	  manifest.dsse.json          (signed) the same bytes in a DSSE envelope,
//	                              signed by the same key, for in-toto, cosign
//	                              and SLSA verifiers
//	  evidence.json               the evidence (package evidence)
//	  scenario.yaml               the scenario as run, byte for byte
//	  status.json                 how the run ended (rundir.Status), as the
//	                              run directory held it
//	  provenance.json             who ran it, where and from what (Provenance)
//	  scopes.json                 each log's source, offset, inode, bytes and
//	                              SHA-256, or why it could not be read
//	                              (Scopes: ScopeRecord by log name)
//	  ROLE-RANK.log               each log's scoped bytes, verbatim, under its
//	                              run-directory name
//	  coord/ranks/ROLE-RANK.json  the registrations, redacted
//	  kube-pod.json               (Kubernetes) the pod, its node's facts and
//	                              its image by digest (machine.Pod), as the
//	                              launcher recorded them beside the attempt,
//	                              redacted
//	  …                           the inputs the evidence read (the record,
//	                              activation records, configs), under their
//	                              run-directory names
//
// Only the three manifest files are outside the manifest; a bundle holding
// any other file, a link or a special file does not verify.
package bundle
