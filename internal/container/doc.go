// Package container drives the container runtime the local launcher runs
// ranks in: docker, through its client. It resolves an image to its
// content digest (the image ID), creates each rank's container from that
// digest and no other (never pulling: abbench runs only images the host
// has), starts it attached, signals it, and removes every container of a
// run by the label that carries the run's token. Every call has a deadline.
package container
