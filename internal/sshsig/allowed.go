package sshsig

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
)

// AllowedSigner is one line of an allowed_signers file (ssh-keygen(1),
// ALLOWED SIGNERS).
type AllowedSigner struct {
	Principals    []string // patterns, * and ? wildcards
	CertAuthority bool
	Namespaces    []string // patterns; empty allows any
	ValidAfter    time.Time
	ValidBefore   time.Time
	Key           ssh.PublicKey
	Line          int
}

// AllowedSigners is a parsed allowed_signers file.
type AllowedSigners struct {
	File    string
	Signers []AllowedSigner
}

// UntrustedError says no allowed signer accepts the signature.
type UntrustedError struct{ Reason string }

func (e *UntrustedError) Error() string { return "untrusted signer: " + e.Reason }

// ReadAllowedSigners reads an allowed_signers file.
func ReadAllowedSigners(file string) (*AllowedSigners, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return ParseAllowedSigners(data, file)
}

// ParseAllowedSigners parses allowed_signers content; errors name file:line.
// Lines may be of any length (the content is in memory already): a line
// too long for a line scanner would be an error naming no line.
func ParseAllowedSigners(data []byte, file string) (*AllowedSigners, error) {
	as := &AllowedSigners{File: file}
	for i, text := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(text)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := parseLine(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, i+1, err)
		}
		s.Line = i + 1
		as.Signers = append(as.Signers, s)
	}
	return as, nil
}

// fields splits on spaces outside double quotes.
func nextField(s string) (field, rest string) {
	s = strings.TrimLeft(s, " \t")
	inQuote := false
	for i, r := range s {
		switch {
		case r == '"':
			inQuote = !inQuote
		case (r == ' ' || r == '\t') && !inQuote:
			return s[:i], s[i:]
		}
	}
	return s, ""
}

func parseLine(line string) (AllowedSigner, error) {
	var s AllowedSigner
	principals, rest := nextField(line)
	s.Principals = strings.Split(strings.Trim(principals, `"`), ",")
	// Options come before the key type, when the next field is not a key type.
	opts, afterOpts := nextField(rest)
	if !isKeyType(opts) {
		rest = afterOpts
		for _, opt := range splitOptions(opts) {
			name, value, _ := strings.Cut(opt, "=")
			value = strings.Trim(value, `"`)
			switch strings.ToLower(name) {
			case "cert-authority":
				s.CertAuthority = true
			case "namespaces":
				s.Namespaces = strings.Split(value, ",")
			case "valid-after":
				t, err := parseTime(value)
				if err != nil {
					return s, err
				}
				s.ValidAfter = t
			case "valid-before":
				t, err := parseTime(value)
				if err != nil {
					return s, err
				}
				s.ValidBefore = t
			default:
				return s, fmt.Errorf("unknown option %q", name)
			}
		}
	}
	key, _, _, _, err := ssh.ParseAuthorizedKey([]byte(strings.TrimSpace(rest)))
	if err != nil {
		return s, fmt.Errorf("public key: %v", err)
	}
	s.Key = key
	return s, nil
}

func isKeyType(s string) bool {
	return strings.HasPrefix(s, "ssh-") || strings.HasPrefix(s, "ecdsa-") || strings.HasPrefix(s, "sk-") || strings.HasPrefix(s, "rsa-")
}

// splitOptions splits comma-separated options outside quotes.
func splitOptions(s string) []string {
	var out []string
	start, inQuote := 0, false
	for i, r := range s {
		switch {
		case r == '"':
			inQuote = !inQuote
		case r == ',' && !inQuote:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// parseTime reads YYYYMMDD[HHMM[SS]][Z] (local time unless Z).
func parseTime(v string) (time.Time, error) {
	loc := time.Local
	if strings.HasSuffix(v, "Z") || strings.HasSuffix(v, "z") {
		v, loc = v[:len(v)-1], time.UTC
	}
	for _, layout := range []string{"20060102150405", "200601021504", "20060102"} {
		if len(v) == len(layout) {
			return time.ParseInLocation(layout, v, loc)
		}
	}
	return time.Time{}, fmt.Errorf("time %q: want YYYYMMDD[HHMM[SS]][Z]", v)
}

// matchAny is OpenSSH's pattern-list match (match_pattern_list): s must
// match at least one pattern and no negated one ("!pattern"), which wins
// over any positive match. Patterns know only '*' (any run) and '?' (one
// character); every other byte, '[' and '\\' too, is literal.
func matchAny(patterns []string, s string) bool {
	positive := false
	for _, p := range patterns {
		negated := strings.HasPrefix(p, "!")
		if negated {
			p = p[1:]
		}
		if matchPattern(p, s) {
			if negated {
				return false
			}
			positive = true
		}
	}
	return positive
}

// matchPattern matches s against one pattern of '*' and '?' wildcards.
func matchPattern(p, s string) bool {
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			if p == "" {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if matchPattern(p, s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
			p, s = p[1:], s[1:]
		default:
			if s == "" || p[0] != s[0] {
				return false
			}
			p, s = p[1:], s[1:]
		}
	}
	return s == ""
}

// Verify checks sig over msg in namespace and that an allowed signer
// accepts it for identity (empty: any principal) at time now. It returns
// the principal patterns of the signer that accepted it.
func (as *AllowedSigners) Verify(sig *Signature, namespace, identity string, msg []byte, now time.Time) (string, error) {
	if err := sig.Verify(namespace, msg); err != nil {
		return "", err
	}
	var why []string
	for _, s := range as.Signers {
		if identity != "" && !matchAny(s.Principals, identity) {
			continue
		}
		if len(s.Namespaces) > 0 && !matchAny(s.Namespaces, namespace) {
			why = append(why, fmt.Sprintf("%s:%d does not allow namespace %q", as.File, s.Line, namespace))
			continue
		}
		if !s.ValidAfter.IsZero() && now.Before(s.ValidAfter) {
			why = append(why, fmt.Sprintf("%s:%d is valid only after %s", as.File, s.Line, s.ValidAfter.Format(time.RFC3339)))
			continue
		}
		if !s.ValidBefore.IsZero() && !now.Before(s.ValidBefore) {
			why = append(why, fmt.Sprintf("%s:%d was valid only before %s", as.File, s.Line, s.ValidBefore.Format(time.RFC3339)))
			continue
		}
		cert, isCert := sig.PublicKey.(*ssh.Certificate)
		switch {
		case s.CertAuthority && isCert:
			if !bytes.Equal(cert.SignatureKey.Marshal(), s.Key.Marshal()) {
				continue
			}
			if err := checkCert(cert, identity, now); err != nil {
				why = append(why, fmt.Sprintf("%s:%d: %v", as.File, s.Line, err))
				continue
			}
		case !s.CertAuthority && !isCert:
			if !bytes.Equal(sig.PublicKey.Marshal(), s.Key.Marshal()) {
				continue
			}
		default:
			continue
		}
		return strings.Join(s.Principals, ","), nil
	}
	if len(why) > 0 {
		return "", &UntrustedError{Reason: strings.Join(why, "; ")}
	}
	who := "the signing key"
	if identity != "" {
		who = fmt.Sprintf("the signing key for identity %q", identity)
	}
	return "", &UntrustedError{Reason: fmt.Sprintf("%s (%s) is not in %s", who, ssh.FingerprintSHA256(sig.PublicKey), as.File)}
}

// checkCert checks a user certificate: signed by its CA, valid now, and
// naming identity among its principals.
func checkCert(cert *ssh.Certificate, identity string, now time.Time) error {
	if cert.CertType != ssh.UserCert {
		return fmt.Errorf("certificate is not a user certificate")
	}
	checker := ssh.CertChecker{Clock: func() time.Time { return now }}
	principal := identity
	if principal == "" && len(cert.ValidPrincipals) > 0 {
		principal = cert.ValidPrincipals[0]
	}
	if err := checker.CheckCert(principal, cert); err != nil {
		return fmt.Errorf("certificate: %v", err)
	}
	return nil
}
