package sshsig

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/abbench/abbench/internal/fuzzseed"
)

// fileLine is the FILE:LINE: an allowed_signers error starts with.
var fileLine = regexp.MustCompile(`^f:(\d+): `)

// FuzzAllowedSigners parses any allowed_signers content. An error names
// a line of the file. Each signer parsed is what its line alone parses
// to. And the parse is consistent with Verify: a signature by a key the
// file does not hold is untrusted, while the same file with that key's
// line appended accepts it, for the line's principal.
func FuzzAllowedSigners(f *testing.F) {
	fuzzseed.Add(f, "../../testdata/nccl/allowed_signers")
	signer := fuzzseed.Signer(f)
	key := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))
	other := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAliry7DIpJQ7ySkDGOH6w9kHC9+xwO6AGPpdTXObQW3"
	for _, s := range []string{
		"# comment\n\n  ci@example.org,!bad@* " + other + " c\n",
		`"a b",c namespaces="x,abbench-*",valid-after="20240101Z" ` + other + "\n",
		"ca@x cert-authority,valid-before=202401011230 " + other + "\n",
		"ci@x " + key + "\n",
		"ci@x namespaces=\"git\" " + key + "\r\nci@x valid-after=29990101 " + key,
		"ci@x bogus=1 " + other + "\n",
		"ci@x valid-after=2024 " + other + "\n",
		"only-a-principal\n",
	} {
		f.Add([]byte(s))
	}
	armored, err := Sign(signer, ns, message)
	if err != nil {
		f.Fatal(err)
	}
	sig, err := Parse(armored)
	if err != nil {
		f.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	const identity = "fuzz@abbench"
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 256<<10 {
			return
		}
		lines := strings.Split(string(data), "\n")
		as, err := ParseAllowedSigners(data, "f")
		if err != nil {
			errorNamesALine(t, err, len(lines))
			return
		}
		if !signersAreTheirLines(t, as, lines, signer.PublicKey()) {
			var ue *UntrustedError
			if who, err := as.Verify(sig, ns, identity, message, now); !errors.As(err, &ue) {
				t.Fatalf("a key the file does not hold is trusted as %q (%v)", who, err)
			}
		}
		appended := fmt.Appendf(bytes.Clone(data), "\n%s %s\n", identity, key)
		with, err := ParseAllowedSigners(appended, "f")
		if err != nil {
			t.Fatalf("the file parsed, with a valid line appended it does not: %v", err)
		}
		who, err := with.Verify(sig, ns, identity, message, now)
		if err != nil || !matchAny(strings.Split(who, ","), identity) {
			t.Fatalf("the appended line's key is not trusted for %s: %q, %v", identity, who, err)
		}
	})
}

// errorNamesALine checks that an allowed_signers error names a line of
// the file, which has n lines.
func errorNamesALine(t *testing.T, err error, n int) {
	m := fileLine.FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("the error names no line: %v", err)
	}
	if line, _ := strconv.Atoi(m[1]); line < 1 || line > n {
		t.Fatalf("the error names line %d of %d: %v", line, n, err)
	}
}

// signersAreTheirLines checks that each signer parsed is what its line
// alone parses to, and says whether one holds key.
func signersAreTheirLines(t *testing.T, as *AllowedSigners, lines []string, key ssh.PublicKey) (holdsKey bool) {
	for _, s := range as.Signers {
		if s.Line < 1 || s.Line > len(lines) {
			t.Fatalf("a signer of line %d of %d", s.Line, len(lines))
		}
		alone, err := ParseAllowedSigners([]byte(lines[s.Line-1]), "f")
		if err != nil || len(alone.Signers) != 1 {
			t.Fatalf("line %d parsed in the file, alone it gives %v (%v)", s.Line, alone, err)
		}
		alone.Signers[0].Line = s.Line
		if !reflect.DeepEqual(alone.Signers[0], s) {
			t.Fatalf("line %d alone parses to %+v, in the file to %+v", s.Line, alone.Signers[0], s)
		}
		holdsKey = holdsKey || bytes.Equal(s.Key.Marshal(), key.Marshal())
	}
	return holdsKey
}

// matchReference is matchPattern by dynamic programming over (pattern,
// string) positions: '*' any run of bytes, '?' one byte.
func matchReference(p, s string) bool {
	// at[j] says whether p[:i] matches s[:j], for the current i.
	at := make([]bool, len(s)+1)
	at[0] = true
	for i := 0; i < len(p); i++ {
		next := make([]bool, len(s)+1)
		for j := 0; j <= len(s); j++ {
			switch {
			case p[i] == '*':
				next[j] = at[j] || (j > 0 && next[j-1])
			case j > 0 && (p[i] == '?' || p[i] == s[j-1]):
				next[j] = at[j-1]
			}
		}
		at = next
	}
	return at[len(s)]
}

// FuzzPrincipalPattern holds OpenSSH's principal and namespace patterns
// to the reference matcher.
func FuzzPrincipalPattern(f *testing.F) {
	for _, c := range [][2]string{{"*@example.org", "ci@example.org"}, {"c?@*.org", "ci@x.org"}, {"[c]i", "ci"}, {"**a*?", "ba"}, {"", ""}} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		// matchPattern backtracks at each '*', as OpenSSH's match_pattern
		// does: exponential in the stars, so keep both short.
		if len(pattern) > 24 || len(s) > 48 {
			return
		}
		if got, want := matchPattern(pattern, s), matchReference(pattern, s); got != want {
			t.Fatalf("matchPattern(%q, %q) = %v, want %v", pattern, s, got, want)
		}
	})
}
