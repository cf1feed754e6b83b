package arms

import (
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/arms/rankwrap"
	"github.com/abbench/abbench/internal/redact"

	"github.com/abbench/abbench/internal/scenarios"
)

// BaseKeys are the only variables a rank inherits from the controller's
// environment: enough to run programs, nothing that could carry an arm key
// or another run's state. PATH gets abbench's own directory first, so tools
// installed beside it (such as disaggsim) are found.
var BaseKeys = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "SHELL", "TERM"}

// RankPath is a rank's PATH: abbench's own directory first, then the
// PATH the rank inherited.
func RankPath(selfDir, inherited string) string {
	return selfDir + string(filepath.ListSeparator) + inherited
}

// rankEnv builds one rank's environment, in this order, later entries
// winning: base (inherited), scenario env, role env, abbench's variables,
// and the arm env for roles that take it. It returns the environment and the
// names it inherited.
func rankEnv(inherited []string, selfDir string, s *scenarios.Scenario, role *scenarios.Role, arm string, d scenarios.TemplateData, secrets *redact.Values) ([]string, []string, error) {
	env := map[string]string{}
	var kept []string
	for _, kv := range inherited {
		k, v, ok := strings.Cut(kv, "=")
		if ok && slices.Contains(BaseKeys, k) {
			env[k] = v
			kept = append(kept, k)
		}
	}
	if selfDir != "" {
		env["PATH"] = RankPath(selfDir, env["PATH"])
	}
	for _, layer := range []map[string]string{s.Env, role.Env} {
		for _, k := range slices.Sorted(maps.Keys(layer)) {
			v, err := scenarios.ExpandSecrets(layer[k], d, secrets)
			if err != nil {
				return nil, nil, err
			}
			env[k] = v
		}
	}
	armKeys := s.ArmKeys()
	env[rankwrap.EnvToken] = d.Token
	env[rankwrap.EnvCoord] = d.Coord
	env[rankwrap.EnvRole] = role.Name
	env[rankwrap.EnvRank] = strconv.Itoa(d.Rank)
	env[rankwrap.EnvArm] = arm
	env[rankwrap.EnvArmKeys] = strings.Join(armKeys, ",")
	env[rankwrap.EnvScratch] = d.Scratch()
	if role.User != "" {
		env[rankwrap.EnvUser] = role.User
	}
	if s.HasBuilds() {
		env[rankwrap.EnvHashExe] = "1"
	}
	for _, k := range armKeys {
		delete(env, k)
	}
	if role.ArmEnv {
		maps.Copy(env, s.Arms[arm].Env) // exact values, never templated
	}
	out := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	slices.Sort(kept)
	return out, kept, nil
}
