package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The shell blocks of the documentation, as TestDocsBlocks runs them. The
// conventions a block's text follows are spelled in docs_blocks_test.go.

// docBlock is one fenced shell block of a Markdown file.
type docBlock struct {
	File     string // the file, relative to the repository
	Line     int    // the line of the opening fence
	Commands []docCommand
	Needs    []string         // what must exist for it to run (docNeeds)
	Skip     string           // why it never runs here, or ""
	Stdout   []*regexp.Regexp // what its standard output must show
	Setup    bool             // hidden from readers in an HTML comment
}

// docCommand is one command of a block: one line, or several joined by
// trailing backslashes.
type docCommand struct {
	Line int    // its first line in the file
	Text string // as written, continuation lines included
	Exit []int  // the statuses it may end with: 0 unless its "# exit N" says
}

func (c docCommand) String() string { return strings.Join(strings.Fields(c.Text), " ") }

// docShellLangs are the info strings of blocks that run.
var docShellLangs = map[string]bool{"sh": true, "bash": true, "shell": true, "console": true}

const docMarker = "<!-- docs-test:"

// parseDocBlocks returns the shell blocks of a Markdown file with the
// markers before each. A marker that is not followed by a shell block, an
// unknown directive, an unclosed fence or a line that is not a whole
// command is an error naming the file and line.
func parseDocBlocks(file, text string) ([]docBlock, error) {
	p := &docParser{file: file, lines: strings.Split(text, "\n")}
	for i := 0; i < len(p.lines); i++ {
		trimmed := strings.TrimSpace(p.lines[i])
		if fence, info, ok := openingFence(trimmed); ok {
			end, err := p.fenced(i, fence, info)
			if err != nil {
				return nil, err
			}
			i = end
			continue
		}
		if err := p.line(i, trimmed); err != nil {
			return nil, err
		}
	}
	if p.pending != nil || p.inSetup {
		return nil, fmt.Errorf("%s:%d: a docs-test marker not followed by a shell block", file, p.pendingLine)
	}
	return p.blocks, nil
}

// docParser is parseDocBlocks' state between lines.
type docParser struct {
	file        string
	lines       []string
	blocks      []docBlock
	pending     *docBlock // the markers read since the last block
	pendingLine int
	inSetup     bool // inside a setup marker's HTML comment
}

// fenced reads the fenced block opening at line i (a shell block takes the
// pending markers) and returns the index of its closing line.
func (p *docParser) fenced(i int, fence, info string) (int, error) {
	end := closingFence(p.lines, i+1, fence)
	if end < 0 {
		return 0, fmt.Errorf("%s:%d: the fence %s is never closed", p.file, i+1, fence)
	}
	lang, _, _ := strings.Cut(info, " ")
	if !docShellLangs[lang] {
		if p.pending != nil {
			return 0, fmt.Errorf("%s:%d: a docs-test marker before a %q block: markers go before sh, bash, shell or console blocks", p.file, p.pendingLine, info)
		}
		return end, nil
	}
	b := docBlock{File: p.file, Line: i + 1, Setup: p.inSetup}
	if p.pending != nil {
		b.Needs, b.Skip, b.Stdout = p.pending.Needs, p.pending.Skip, p.pending.Stdout
	}
	cmds, err := docCommands(p.file, i+2, p.lines[i+1:end], lang == "console")
	if err != nil {
		return 0, err
	}
	b.Commands = cmds
	p.blocks = append(p.blocks, b)
	p.pending = nil
	return end, nil
}

// line reads line i outside fences: a marker, the end of a setup comment,
// a blank line, or text, which may not come between a marker and its block.
func (p *docParser) line(i int, trimmed string) error {
	switch {
	case strings.HasPrefix(trimmed, docMarker):
		return p.marker(i, trimmed)
	case p.inSetup && trimmed == "-->":
		p.inSetup = false
	case trimmed == "":
	case p.pending != nil:
		return fmt.Errorf("%s:%d: a docs-test marker not followed by a shell block", p.file, p.pendingLine)
	}
	return nil
}

// marker reads the docs-test marker on line i into the pending markers.
func (p *docParser) marker(i int, trimmed string) error {
	body := strings.TrimSpace(strings.TrimPrefix(trimmed, docMarker))
	closed := strings.HasSuffix(body, "-->")
	body = strings.TrimSpace(strings.TrimSuffix(body, "-->"))
	if p.pending == nil {
		p.pending, p.pendingLine = &docBlock{}, i+1
	}
	setup, err := parseDocDirectives(p.file, i+1, body, p.pending)
	if err != nil {
		return err
	}
	if setup == closed {
		return fmt.Errorf("%s:%d: a setup marker opens an HTML comment around its block (<!-- docs-test: setup, the block, -->); other markers are one whole comment", p.file, i+1)
	}
	p.inSetup = p.inSetup || setup
	return nil
}

// openingFence says whether a line opens a fenced block: its fence and info string.
func openingFence(trimmed string) (fence, info string, ok bool) {
	for _, c := range []string{"`", "~"} {
		n := len(trimmed) - len(strings.TrimLeft(trimmed, c))
		if n >= 3 {
			return trimmed[:n], strings.TrimSpace(trimmed[n:]), true
		}
	}
	return "", "", false
}

// closingFence is the index of the line closing fence, from line from, or -1.
func closingFence(lines []string, from int, fence string) int {
	for j := from; j < len(lines); j++ {
		t := strings.TrimSpace(lines[j])
		if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
			return j
		}
	}
	return -1
}

// parseDocDirectives reads a marker's directives, separated by ";", into b;
// it says whether one of them is setup.
func parseDocDirectives(file string, line int, body string, b *docBlock) (setup bool, err error) {
	for _, d := range splitDirectives(body) {
		name, arg, _ := strings.Cut(d, " ")
		arg = strings.TrimSpace(arg)
		switch {
		case d == "setup":
			setup = true
		case name == "needs" && arg != "":
			if docNeeds[arg] == nil {
				return false, fmt.Errorf("%s:%d: needs %q: known are %s", file, line, arg, strings.Join(docNeedNames(), ", "))
			}
			b.Needs = append(b.Needs, arg)
		case strings.HasPrefix(d, "skip:") && strings.TrimSpace(strings.TrimPrefix(d, "skip:")) != "":
			b.Skip = strings.TrimSpace(strings.TrimPrefix(d, "skip:"))
		case name == "stdout":
			pattern, err := strconv.Unquote(arg)
			if err != nil {
				return false, fmt.Errorf("%s:%d: stdout %s: want a double-quoted regular expression", file, line, arg)
			}
			re, err := regexp.Compile(pattern)
			if err != nil {
				return false, fmt.Errorf("%s:%d: stdout %s: %v", file, line, arg, err)
			}
			b.Stdout = append(b.Stdout, re)
		default:
			return false, fmt.Errorf("%s:%d: unknown docs-test directive %q: want needs NAME, stdout \"REGEX\", skip: REASON or setup", file, line, d)
		}
	}
	return setup, nil
}

// splitDirectives splits at semicolons outside double quotes.
func splitDirectives(body string) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '\\':
			i++
		case '"':
			quoted = !quoted
		case ';':
			if !quoted {
				out = append(out, strings.TrimSpace(body[start:i]))
				start = i + 1
			}
		}
	}
	if last := strings.TrimSpace(body[start:]); last != "" {
		out = append(out, last)
	}
	return out
}

// exitComment is a trailing "# exit N" or "# exit N or M" comment.
var exitComment = regexp.MustCompile(`^#\s*exit\s+(\d+(?:\s+or\s+\d+)*)\b`)

// docCommands splits a block's lines (the first is file line first) into
// commands. In console blocks only lines starting with "$ " are commands.
func docCommands(file string, first int, lines []string, console bool) ([]docCommand, error) {
	var cmds []docCommand
	for i := 0; i < len(lines); i++ {
		text := lines[i]
		if console {
			t := strings.TrimLeft(text, " \t")
			if !strings.HasPrefix(t, "$ ") {
				continue
			}
			text = strings.TrimPrefix(t, "$ ")
		}
		t := strings.TrimSpace(text)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		c := docCommand{Line: first + i, Text: text}
		for strings.HasSuffix(lines[i], "\\") && i+1 < len(lines) {
			i++
			c.Text += "\n" + lines[i]
		}
		c.Exit = []int{0}
		if m := exitComment.FindStringSubmatch(trailingComment(lines[i])); m != nil {
			c.Exit = nil
			for _, n := range strings.Split(m[1], "or") {
				v, _ := strconv.Atoi(strings.TrimSpace(n))
				c.Exit = append(c.Exit, v)
			}
		}
		if strings.Contains(strings.ReplaceAll(c.Text, "<<<", ""), "<<") {
			return nil, fmt.Errorf("%s:%d: a here-document: the docs test runs one command a line", file, c.Line)
		}
		cmds = append(cmds, c)
	}
	return cmds, nil
}

// trailingComment is the comment that ends a shell line ("" if none): a #
// that starts a word outside quotes.
func trailingComment(line string) string {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
		case c == '\\':
			i++
		case quote == '"':
			if c == '"' {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return line[i:]
		}
	}
	return ""
}
