package rankwrap

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/readonly"
)

// account is what the wrapper needs of a user to become it.
type account struct {
	uid, gid int
	groups   []int // supplementary group ids, the primary one included
	home     string
}

// lookupAccount finds a user in /etc/passwd and /etc/group, else through
// the system's name services (getent and id, which consult NSS: LDAP, SSSD).
// The wrapper does not use os/user: with cgo it would link the C library
// into every rank's wrapper, whose dynamic loading cost each of thousands
// of ranks milliseconds (bench/arm-overhead.sh on 2 cores: +97 ms for 16
// ranks, +24 ms static).
func lookupAccount(name string) (account, error) {
	fields, err := passwdEntry(name)
	if err != nil {
		return account{}, err
	}
	uid, err1 := strconv.Atoi(fields[2])
	gid, err2 := strconv.Atoi(fields[3])
	if err1 != nil || err2 != nil {
		return account{}, fmt.Errorf("user %s: bad passwd entry %q", name, strings.Join(fields, ":"))
	}
	a := account{uid: uid, gid: gid, home: fields[5], groups: []int{gid}}
	if ids, err := fileGroups(name); err == nil {
		a.groups = append(a.groups, ids...)
	} else if out, err := exec.Command("id", "-G", name).Output(); err == nil {
		for _, f := range strings.Fields(string(out)) {
			if g, err := strconv.Atoi(f); err == nil {
				a.groups = append(a.groups, g)
			}
		}
	}
	slices.Sort(a.groups)
	a.groups = slices.Compact(a.groups)
	return a, nil
}

// passwdEntry is name's passwd line split at ':' (seven fields).
func passwdEntry(name string) ([]string, error) {
	if f, err := os.Open("/etc/passwd"); err == nil {
		defer readonly.Close(f)
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if fields := strings.Split(sc.Text(), ":"); len(fields) == 7 && fields[0] == name {
				return fields, nil
			}
		}
	}
	out, err := exec.Command("getent", "passwd", name).Output()
	if err != nil {
		return nil, fmt.Errorf("user %s: no such user (not in /etc/passwd, and getent passwd %s found none)", name, name)
	}
	fields := strings.Split(strings.TrimSpace(string(out)), ":")
	if len(fields) != 7 {
		return nil, fmt.Errorf("user %s: getent passwd gave %q", name, strings.TrimSpace(string(out)))
	}
	return fields, nil
}

// fileGroups are the ids of the /etc/group groups that list name as a
// member; an error when the user has none there (its groups may come
// from a name service).
func fileGroups(name string) ([]int, error) {
	f, err := os.Open("/etc/group")
	if err != nil {
		return nil, err
	}
	defer readonly.Close(f)
	var ids []int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) != 4 || !slices.Contains(strings.Split(fields[3], ","), name) {
			continue
		}
		if g, err := strconv.Atoi(fields[2]); err == nil {
			ids = append(ids, g)
		}
	}
	if len(ids) == 0 {
		return nil, errors.New("no group lists the user")
	}
	return ids, nil
}
