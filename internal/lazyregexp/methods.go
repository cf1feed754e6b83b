package lazyregexp

// The methods of regexp.Regexp that abbench's packages call, each
// compiling the expression on first use.

// String is the pattern; it compiles nothing.
func (r *Regexp) String() string { return r.pattern }

func (r *Regexp) Match(b []byte) bool { return r.Regexp().Match(b) }

func (r *Regexp) MatchString(s string) bool { return r.Regexp().MatchString(s) }

func (r *Regexp) FindStringIndex(s string) []int { return r.Regexp().FindStringIndex(s) }

func (r *Regexp) FindSubmatch(b []byte) [][]byte { return r.Regexp().FindSubmatch(b) }

func (r *Regexp) FindStringSubmatch(s string) []string { return r.Regexp().FindStringSubmatch(s) }

func (r *Regexp) FindAllSubmatch(b []byte, n int) [][][]byte {
	return r.Regexp().FindAllSubmatch(b, n)
}

func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Regexp().FindAllStringSubmatch(s, n)
}

func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.Regexp().ReplaceAllString(src, repl)
}

func (r *Regexp) Split(s string, n int) []string { return r.Regexp().Split(s, n) }

func (r *Regexp) SubexpNames() []string { return r.Regexp().SubexpNames() }

func (r *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return r.Regexp().FindAllStringIndex(s, n)
}
