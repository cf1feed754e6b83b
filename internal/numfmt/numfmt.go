// Package numfmt formats the numbers of abbench's reports, one way for
// every renderer: a value a person reads has at most five significant
// digits (never fewer than its integer part), thousands separated by
// commas and no exponent (37,997 and 0.00012345, not 3.8e+04 and
// 1.2345e-04); a p value below what a table can show is "<0.0001"; a
// value a program reads (CSV) is exact, also without an exponent.
package numfmt

import (
	"math"
	"strconv"
	"strings"
)

// ValueDigits is how many significant digits Value keeps.
const ValueDigits = 5

// PFloor is the smallest p that P prints as a number.
const PFloor = 0.0001

// Value formats v for a person: ValueDigits significant digits (every
// digit of the integer part), trailing zeros after the point dropped.
func Value(v float64) string { return Significant(v, ValueDigits) }

// P formats a p value: three significant digits, "<0.0001" below PFloor.
func P(p float64) string {
	if p < PFloor && p >= 0 {
		return "<" + Fixed(PFloor, 4)
	}
	return Significant(p, 3)
}

// PEquals is "p=" and P(p), or "p<0.0001" below PFloor.
func PEquals(p float64) string {
	s := P(p)
	if strings.HasPrefix(s, "<") {
		return "p" + s
	}
	return "p=" + s
}

// Fixed formats v with decimals digits after the point (an axis's ticks,
// whose step fixes how many), thousands separated.
func Fixed(v float64, decimals int) string {
	if bad, s := notFinite(v); bad {
		return s
	}
	return group(strconv.FormatFloat(v, 'f', max(decimals, 0), 64))
}

// Plain is v exactly, for a program: the shortest decimal that reads back
// as v, without an exponent or separators.
func Plain(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// Significant is v with digits significant digits (a level such as alpha
// takes fewer than Value's), never rounding its integer part, trailing
// zeros after the point dropped.
func Significant(v float64, digits int) string {
	if bad, s := notFinite(v); bad {
		return s
	}
	if v == 0 {
		return "0"
	}
	exp := int(math.Floor(math.Log10(math.Abs(v))))
	s := strconv.FormatFloat(v, 'f', max(digits-1-exp, 0), 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return group(s)
}

// group puts a comma between each three digits of s's integer part.
func group(s string) string {
	sign, rest := "", s
	if strings.HasPrefix(rest, "-") {
		sign, rest = "-", rest[1:]
	}
	whole, frac, hasFrac := strings.Cut(rest, ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		b.WriteString("." + frac)
	}
	return sign + b.String()
}

func notFinite(v float64) (bool, string) {
	switch {
	case math.IsNaN(v):
		return true, "NaN"
	case math.IsInf(v, 1):
		return true, "+Inf"
	case math.IsInf(v, -1):
		return true, "-Inf"
	}
	return false, ""
}
