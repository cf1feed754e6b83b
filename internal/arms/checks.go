package arms

import (
	"errors"
	"fmt"

	"github.com/abbench/abbench/internal/filehash"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

func reasonOf(err error) reason.Reason {
	var re *reason.Error
	if errors.As(err, &re) && len(re.Reasons) > 0 {
		return re.Reasons[0]
	}
	return reason.New(reason.ArmModeMismatch, "%v", err)
}

// checkArm requires, before any client traffic, a registration from every
// expected rank with the exact arm values, and modes that agree.
func (c *controller) checkArm(when string) error {
	rs := c.checkRegistrations(when, false)
	c.status.Reasons = append(c.status.Reasons, rs...)
	if len(rs) > 0 {
		return errAbort
	}
	if err := c.checkModes(when); err != nil {
		c.fail(reasonOf(err))
		return errAbort
	}
	return nil
}

// checkAtTeardown checks what must still hold when the measurement is
// over: the modes agree with the arm, the clients registered the arm's
// values, and when the arms are builds, some rank ran this arm's.
func (c *controller) checkAtTeardown() {
	if err := c.checkModes("at teardown"); err != nil {
		c.fail(reasonOf(err))
	}
	c.status.Reasons = append(c.status.Reasons, c.checkRegistrations("by the client", true)...)
	if len(c.status.Builds) > 0 && !c.ranBuild {
		c.fail(reason.New(reason.BuildMismatch, "no rank ran arm %s's build %s: start the system under test as {{.Build}} in its role's command", c.arm, c.ownBuild().Binary))
	}
}

// hashBuilds names every arm's build by the SHA-256 of its binary, before
// any rank starts, so a rank can be held to its own arm's build.
func (c *controller) hashBuilds() error {
	if !c.s.HasBuilds() {
		return nil
	}
	for _, name := range c.s.ArmOrder {
		b := c.s.Arms[name].Build
		path := c.s.TemplateData(scenarios.Place{Arm: name}).Build
		sum, err := filehash.SHA256(path)
		if err != nil {
			return fmt.Errorf("arm %s's build: %w (build the binary, or fix arms: %s: build: binary:)", name, err, name)
		}
		c.status.Builds = append(c.status.Builds, rundir.BuildFact{Arm: name, Binary: path, SHA256: sum, Source: b.Source})
	}
	c.writeStatus()
	return nil
}

// ownBuild is the arm's own build, as hashed when the run started.
func (c *controller) ownBuild() rundir.BuildFact {
	for _, b := range c.status.Builds {
		if b.Arm == c.arm {
			return b
		}
	}
	return rundir.BuildFact{}
}

// checkBuild holds a rank's executable to the arm's build: running
// another arm's build, or the arm's binary changed since the run started,
// is a build-mismatch. It reports whether the rank ran the arm's build.
func (c *controller) checkBuild(r *scenarios.Role, rank int, reg *rundir.Registration) (bool, []reason.Reason) {
	if len(c.status.Builds) == 0 || reg.ExeSHA256 == "" {
		return false, nil
	}
	own := c.ownBuild()
	if reg.ExeSHA256 == own.SHA256 {
		return true, nil
	}
	for _, b := range c.status.Builds {
		if b.SHA256 == reg.ExeSHA256 {
			return false, []reason.Reason{reason.New(reason.BuildMismatch, "%s rank %d ran arm %s's build %s (sha256 %.12s), but this is arm %s, whose build is %s (sha256 %.12s)",
				r.Name, rank, b.Arm, b.Binary, b.SHA256, c.arm, own.Binary, own.SHA256).At(c.arm, r.Name, rank)}
		}
	}
	if len(reg.Command) > 0 && reg.Command[0] == own.Binary {
		return false, []reason.Reason{reason.New(reason.BuildMismatch, "%s rank %d ran %s with content sha256 %.12s, but it held %.12s when the run started: the build changed during the run",
			r.Name, rank, own.Binary, reg.ExeSHA256, own.SHA256).At(c.arm, r.Name, rank)}
	}
	return false, nil
}

// checkRegistrations checks every started rank's registration (clients only
// when clients is set) against the arm.
func (c *controller) checkRegistrations(when string, clients bool) []reason.Reason {
	var rs []reason.Reason
	for _, r := range c.s.Roles {
		if r.Client != clients {
			continue // clients register when they start, and are checked after
		}
		for rank := range r.Ranks {
			reg, ok, err := rundir.ReadRegistration(c.coord, r.Name, rank)
			if err != nil || !ok {
				rs = append(rs, reason.New(reason.RankMissing, "%s rank %d never registered %s%s", r.Name, rank, when, c.waitingWhy(r.Name, rank)).At(c.arm, r.Name, rank))
				continue
			}
			ranOwn, brs := c.checkBuild(&r, rank, &reg)
			rs = append(rs, brs...)
			if ranOwn {
				c.ranBuild = true
			}
			rs = append(rs, c.checkArmEnv(&r, rank, &reg)...)
		}
	}
	return rs
}

// waitingWhy is why rank of role did not run yet, as its driver last
// saw it (a pod's scheduler reason), as ": WHY"; "" when it cannot say.
func (c *controller) waitingWhy(role string, rank int) string {
	for _, p := range c.procs {
		if p.Role == role && p.Index == rank && p.Waiting() != "" {
			return ": " + p.Waiting()
		}
	}
	return ""
}

// checkArmEnv holds a rank's registered arm keys to its role: a role that
// takes the arm env receives every key with the arm's exact value, any
// other role none of them.
func (c *controller) checkArmEnv(r *scenarios.Role, rank int, reg *rundir.Registration) []reason.Reason {
	var rs []reason.Reason
	armEnv := c.s.Arms[c.arm].Env
	for _, k := range c.s.ArmKeys() {
		got := reg.ArmEnv[k]
		switch {
		case r.ArmEnv && got == nil:
			rs = append(rs, reason.New(reason.ArmEnvMissing, "%s rank %d did not receive %s (arm %s sets %q)", r.Name, rank, k, c.arm, armEnv[k]).At(c.arm, r.Name, rank))
		case r.ArmEnv && *got != armEnv[k]:
			rs = append(rs, reason.New(reason.ArmEnvMissing, "%s rank %d received %s=%q, but arm %s sets %q", r.Name, rank, k, *got, c.arm, armEnv[k]).At(c.arm, r.Name, rank))
		case !r.ArmEnv && got != nil:
			rs = append(rs, reason.New(reason.ArmEnvLeak, "%s rank %d received arm key %s=%q, but role %s does not take the arm env", r.Name, rank, k, *got, r.Name).At(c.arm, r.Name, rank))
		}
	}
	return rs
}

// checkModes requires the last mode line of each rank of every mode
// rule's role to agree with the arm.
func (c *controller) checkModes(when string) error {
	armEnv := c.s.Arms[c.arm].Env
	var rs []reason.Reason
	for _, p := range c.procs {
		m := c.s.Evidence.Mode.Of(p.Role)
		if m == nil {
			continue
		}
		re := c.pattern(m.Pattern)
		if p.mode == nil {
			p.mode = newFollower(p.Log, p.Offset, re)
		}
		if !p.mode.poll(c.followBuf()) {
			rs = append(rs, reason.New(reason.ArmModeMismatch, "%s rank %d logged no mode line %s", p.Role, p.Index, when).At(c.arm, p.Role, p.Index))
			continue
		}
		last := p.mode.last
		for i, g := range re.SubexpNames() {
			if want, ok := armEnv[g]; ok && last[i] != want {
				rs = append(rs, reason.New(reason.ArmModeMismatch, "%s rank %d logs %s=%s %s, but arm %s sets %q", p.Role, p.Index, g, last[i], when, c.arm, want).At(c.arm, p.Role, p.Index))
			}
		}
	}
	if len(rs) > 0 {
		return &reason.Error{Reasons: rs}
	}
	return nil
}
