package render

import (
	"io"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/textout"
)

// WriteArm prints how an arm run went and its evidence.
func WriteArm(w io.Writer, st *rundir.Status, ev *evidence.Evidence) error {
	out := textout.New(w)
	out.Printf("arm %s: run %s in %s (token %s)\n", st.Arm, st.State, st.Ended.Sub(st.Started).Round(time.Millisecond), st.Token)
	out.Printf("run directory: %s\n", st.Dir)
	if err := out.Err(); err != nil {
		return err
	}
	return ev.WriteText(w)
}

// WriteSwept says what a sweep of dead controllers (arms.SweepDead) did:
// each attempt it stopped, and a warning for each it could not mark.
func WriteSwept(w io.Writer, swept []string, unmarked *reason.Error) error {
	out := textout.New(w)
	for _, attempt := range swept {
		out.Printf("abbench: the controller of %s died without ending its run: abbench stopped what it left\n", attempt)
	}
	if unmarked != nil {
		for _, line := range strings.Split(unmarked.Error(), "\n") {
			out.Printf("abbench: warning: %s\n", line)
		}
	}
	return out.Err()
}
