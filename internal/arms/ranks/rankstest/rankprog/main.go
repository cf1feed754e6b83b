// Command rankprog is the rank program of the rank drivers' contract
// suite (arms/ranks/rankstest): static, so that an image FROM scratch
// runs it too.
package main

import (
	"os"

	"github.com/abbench/abbench/internal/arms/ranks/rankstest"
)

func main() { os.Exit(rankstest.Rank(os.Args[1:], os.Stdout)) }
