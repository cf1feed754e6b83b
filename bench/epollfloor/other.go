//go:build !linux

// Command epollfloor measures a Go client's floor with epoll: Linux only.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "epollfloor: Linux only (epoll)")
	os.Exit(2)
}
