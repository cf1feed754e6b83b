// Command pause holds a pod's namespaces for the dev cluster's sandboxes:
// the pause image is built from it here, since no registry serves one.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
}
