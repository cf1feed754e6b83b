package evidence

// The lifecycle phases of one rank's scope, in order.
const (
	inProfiling   = iota // before the first lifecycle-end line
	awaitingMode         // profiling ended; the measured lifecycle starts at the next mode line
	inMeasured           // facts count here, through the next lifecycle-end line
	afterMeasured        // a further mode line here means another attempt is in scope
)

// phaseLine is a matching line as the lifecycle sees it: a mode line, a
// lifecycle-end line, both, or neither (a line of a fact or a counter).
type phaseLine struct{ mode, end bool }

// phases follows one rank's lifecycles through its scope, a matching line
// at a time, in constant memory: the measured lifecycle of a rank depends
// only on its own lines. It records what the cross-rank rule
// (completeness) needs: whether the profiling lifecycle ended, the measured
// one started and ended, and whether another lifecycle followed it.
type phases struct {
	phase int
	// hasEnd: the role has a lifecycle-end rule; without one its measured
	// lifecycle ends with the scope.
	hasEnd                    bool
	profEnded, started, ended bool
	anotherLifecycle          bool
}

// newPhases is the state at the start of a scope: in the profiling
// lifecycle when the scenario has one and the role a lifecycle-end line to
// end it; else awaiting the measured lifecycle's mode line when the role
// has a mode rule; else in the measured lifecycle already.
func newPhases(profiling, hasMode, hasEnd bool) phases {
	p := phases{hasEnd: hasEnd}
	switch {
	case profiling && hasEnd:
		p.phase = inProfiling
	case hasMode:
		p.phase = awaitingMode
	default:
		p.phase, p.started = inMeasured, true
	}
	return p
}

// step moves the lifecycle along one matching line, and says whether the
// line belongs to the measured lifecycle (its facts count). The mode line
// that starts the measured lifecycle and the lifecycle-end line that ends
// it belong to it; the end line of the profiling lifecycle does not.
func (p *phases) step(l phaseLine) bool {
	switch p.phase {
	case inProfiling:
		if l.end {
			p.phase, p.profEnded = awaitingMode, true
		}
		return false
	case awaitingMode:
		if !l.mode {
			return false
		}
		p.phase, p.started = inMeasured, true
	case afterMeasured:
		if l.mode {
			p.anotherLifecycle = true
		}
		return false
	}
	if l.end {
		p.phase, p.ended = afterMeasured, true
	}
	return true
}

// eof ends the scope: a role without a lifecycle-end rule ends its measured
// lifecycle here.
func (p *phases) eof() {
	if !p.hasEnd {
		p.ended = true
	}
}
