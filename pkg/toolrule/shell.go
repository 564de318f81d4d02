package toolrule

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"mvdan.cc/sh/v3/syntax"
)

// MaxNesting bounds the constructs a command line may open that the
// parser descends into: every "(", a "[" after a name or "$" (a subscript,
// $[…]), a "{" after "$" or before a blank or operator (a parameter, a
// block), and a "!" before a blank or "(" (a negation, which [[ … ]]
// nests). They are counted, not matched, so that no quote, escape or case
// pattern can hide one; only text that quotes make text (in '…', "…" and
// a here-document whose delimiter is quoted), once the parser confirms
// it reads it so, is left out (see withoutText). The parser recurses on each, and in the browser
// about a thousand nested arithmetic parentheses (2 KB), or four thousand
// negations in a [[ … ]], overflowed the call stack: a RangeError, which
// ends the module. It also bounds a run of ~, !, + and - (blanks between
// them included), which in arithmetic ($((…)), let, ${x:…}) nest one
// unary operator in the next at a byte each: 32 KB of ~ overflowed the
// stack inside a single $((…)). What else nests (keywords, binary
// operators) costs at least two bytes a level and stays below the stack
// within MaxInput (docs/architecture.md, Tool patterns, has the
// measurements).
const MaxNesting = 256

// joinLines removes line continuations, as the shell does: "$\<newline>("
// is "$(".
func joinLines(s string) string { return strings.NewReplacer("\\\r\n", "", "\\\n", "").Replace(s) }

// openings counts, for MaxNesting, the constructs s opens.
func openings(s string) int {
	s = joinLines(s)
	n := 0
	for i := range len(s) {
		switch s[i] {
		case '(':
			n++
		case '[':
			if i > 0 && (s[i-1] == '$' || s[i-1] == '_' || isAlnum(s[i-1])) {
				n++
			}
		case '{':
			if i > 0 && s[i-1] == '$' || i+1 == len(s) || strings.IndexByte(" \t\r\n|&;()<>", s[i+1]) >= 0 {
				n++
			}
		case '!':
			if i+1 < len(s) && strings.IndexByte(" \t\r\n(", s[i+1]) >= 0 {
				n++
			}
		}
	}
	return n
}

// unaryRun returns, for MaxNesting, the longest run in s of ~, !, + and -
// with only blanks between them: as many unary operators nested in one
// another, where the shell reads them as arithmetic.
func unaryRun(s string) int {
	longest, run := 0, 0
	for _, c := range []byte(joinLines(s)) {
		switch c {
		case '~', '!', '+', '-':
			run++
			longest = max(longest, run)
		case ' ', '\t', '\r', '\n':
		default:
			run = 0
		}
	}
	return longest
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// refusal is why commands refuses a command line: a Reason constant and
// the construct, in words.
type refusal struct{ reason, what string }

func unsupported(format string, args ...any) *refusal {
	return &refusal{ReasonUnsupportedShell, fmt.Sprintf(format, args...)}
}

// places are the path specifiers a command's redirections may use, and
// the working directory relative ones are relative to ("" when unknown).
type places struct {
	write, read []string
	dir         string
}

// commands parses the command line s as bash does and returns its simple
// commands, each as its words joined by one space (a word as written,
// quotes included, so that 'git' is not git), or why it refuses s.
//
// The decision is made on the syntax tree. Statements joined by ;, &,
// newlines, &&, || and pipes, negated with !, or grouped in ( … ) and
// { …; } are allowed when each simple command is. A simple command is
// allowed only when every word is made of literals, quotes ('…', "…") and
// plain parameter expansions ($name, ${name}); anything else that can run
// or evaluate something — command and process substitution (refused with
// ReasonCommandSubstitution), other expansions such as ${x@P} (prompt
// expansion runs command substitutions held in the value) or ${x:off}
// and ${a[i]} (which evaluate arithmetic), $((…)), $'…', extended globs,
// environment assignments, a here-document that could expand something
// or end elsewhere than the parser ends it (see heredoc), if/for/while/
// case, functions, declarations and coprocesses (ReasonUnsupportedShell)
// — is refused, as are redirections to or from files no pattern lists
// (ReasonRedirection).
// A statement that is only redirections runs nothing and yields no
// command. Comments are not commands.
func commands(s string, allowed places) ([]string, *refusal) {
	// Where the parser and the shells read a line differently, refuse:
	// a carriage return is part of a word to bash and dash, but the parser
	// takes it for a blank (so "status\r#; rm" would hide rm in a comment).
	if strings.Contains(strings.ReplaceAll(s, "\r\n", "\n"), "\r") {
		return nil, unsupported("a carriage return")
	}
	// Nor a NUL: no argument can hold one, and bash reads the line as
	// ending there ("ls\x00 --help" runs ls), where the parser reads on.
	if strings.ContainsRune(s, 0) {
		return nil, unsupported("a NUL byte")
	}
	if r := tooDeep(s); r != nil {
		return nil, r
	}
	f, err := parse(s)
	if err != nil {
		return nil, unsupported("syntax the shell parser refuses (%v)", err)
	}
	c := checker{src: s, places: allowed}
	c.comments(f.Last)
	for _, st := range f.Stmts {
		if c.stmt(st); c.refused != nil {
			return nil, c.refused
		}
	}
	return c.cmds, nil
}

// tooDeep refuses s, unparsed, when it opens more than MaxNesting
// constructs or holds a longer run of unary operators, quoted text left
// out (see withoutText).
func tooDeep(s string) *refusal {
	code := s
	if openings(s) > MaxNesting || unaryRun(s) > MaxNesting {
		code = withoutText(s)
	}
	if n := openings(code); n > MaxNesting {
		return unsupported("%d (, [, { and ! that open nested syntax (at most %d are parsed)", n, MaxNesting)
	}
	if n := unaryRun(code); n > MaxNesting {
		return unsupported("%d ~, !, + and - in a row, which arithmetic reads as nested syntax (at most %d are parsed)", n, MaxNesting)
	}
	return nil
}

func parse(s string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(s), "")
}

// withoutText returns s with the bytes that openings and unaryRun count
// made dots where quotes make them text, which the parser reads as it is,
// descending into nothing: in single quotes, in double quotes (but a byte
// after a $, which opens $( or ${), and in the text of a here-document
// whose delimiter is quoted. So long code in python -c '…', node -e "…"
// or cat <<'EOF' counts nothing towards MaxNesting.
//
// textSpans finds those texts by their shape, and the dots are kept only
// when the parser, given the dotted line, reads each of them as such a
// text where the checker looks (a word of a simple command or a
// redirection; see textRead), and otherwise s is returned. Then it reads
// the original the same way: up to a text the two lines are the same; in
// the text the lexer looks at none of the bytes made dots (only at the
// quote that ends it, a $, a backquote, a backslash and the lines that
// end a here-document, none of which are dots, and a byte after a $ stays
// as it is); so it leaves the text where it leaves the dotted one. A
// here-document's text ends at the first line that is its delimiter in
// both: textSpans ends it at the original's first, and the parser, given
// the dotted line, at that same line, which is no text and so the same in
// both. It parses the dotted line only when that is within MaxNesting.
func withoutText(s string) string {
	// The parser leaves a NUL out, as bash does, so that a line "E\x00("
	// ends a here-document "E(" that textSpans would read on.
	if strings.ContainsAny(s, "\r\x00") {
		return s
	}
	spans := textSpans(s)
	dotted := []byte(s)
	for _, sp := range spans {
		for k := sp.start; k < sp.end; k++ {
			if strings.IndexByte("([{!~+-", s[k]) >= 0 && !afterDollar(s, k) {
				dotted[k] = '.'
			}
		}
	}
	code := string(dotted)
	if code == s || openings(code) > MaxNesting || unaryRun(code) > MaxNesting {
		return s
	}
	f, err := parse(code)
	if err != nil {
		return s
	}
	read := textRead(f, s, code)
	for _, sp := range spans {
		if code[sp.start:sp.end] != s[sp.start:sp.end] && !read[[3]int{int(sp.kind), sp.start, sp.stop}] {
			return s
		}
	}
	return code
}

// afterDollar reports whether s[i] follows a $, line continuations left
// out: in double quotes, $( and ${ open an expansion.
func afterDollar(s string, i int) bool {
	i--
	for i >= 1 && s[i] == '\n' && s[i-1] == '\\' {
		i -= 2
	}
	return i >= 0 && s[i] == '$'
}

// textSpan is a text in a command line: a quote's from start to end
// (stop is end), or a quoted here-document's, where stop is the end of
// the line that ends it. kind is ', " or <.
type textSpan struct {
	start, end, stop int
	kind             byte
}

// textSpans returns the texts of s's single and double quotes and of its
// quoted here-documents, found by their shape as a shell reads s from the
// start: a backslash escapes a byte, $'…' and $"…" are no text, a comment
// ends at the line's end, a here-document's text begins on the next line
// and ends at the first line that is its delimiter (after tabs, for <<-).
// It stops, returning what it found, where it would have to read what the
// shell runs or expands to know where a quote ends ($(…), `…`, <(…),
// ${…} but ${name}, $((…))) or where it cannot tell (an unterminated
// quote, a here-document's delimiter that is not a plain name or a
// quoted one). withoutText has the parser confirm each.
func textSpans(s string) []textSpan {
	var spans []textSpan
	type heredoc struct {
		delim        string
		dash, quoted bool
	}
	var open []heredoc
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			i++
		case c == '`' || c == '$' && quoteStop(s, i) || (c == '<' || c == '>') && strings.HasPrefix(s[i+1:], "("):
			return spans
		case c == '$' && i+1 < len(s) && (s[i+1] == '\'' || s[i+1] == '"'):
			end := quoteEnd(s, i+1, true)
			if end < 0 {
				return spans
			}
			i = end
		case c == '\'' || c == '"':
			end := quoteEnd(s, i, false)
			if end < 0 {
				return spans
			}
			spans = append(spans, textSpan{i + 1, end, end, c})
			i = end
		case c == '#' && (i == 0 || strings.IndexByte(" \t\n;&|()<>", s[i-1]) >= 0):
			for i+1 < len(s) && s[i+1] != '\n' {
				i++
			}
		case strings.HasPrefix(s[i:], "<<") && !strings.HasPrefix(s[i:], "<<<"):
			j := i + 2
			h := heredoc{dash: j < len(s) && s[j] == '-'}
			if h.dash {
				j++
			}
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			k := j
			if h.quoted = j < len(s) && (s[j] == '\'' || s[j] == '"'); h.quoted {
				end := strings.IndexByte(s[j+1:], s[j])
				if end < 0 {
					return spans
				}
				h.delim, k = s[j+1:j+1+end], j+2+end
			} else {
				for k < len(s) && strings.IndexByte(" \t\n;&|()<>", s[k]) < 0 {
					k++
				}
				h.delim = s[j:k]
			}
			if h.delim == "" || strings.ContainsAny(h.delim, "\\$`'\"") {
				return spans
			}
			open = append(open, h)
			i = k - 1
		case c == '\n' && len(open) > 0:
			start := i + 1
			for _, h := range open {
				end := start
				for {
					if end >= len(s) {
						return spans // never ends: the parser refuses it
					}
					line, _, _ := strings.Cut(s[end:], "\n")
					if h.dash && strings.TrimLeft(line, "\t") == h.delim || line == h.delim {
						if h.quoted && start < end {
							spans = append(spans, textSpan{start, end, end + len(line), '<'})
						}
						start = end + len(line) + 1
						break
					}
					end += len(line) + 1
				}
			}
			open = nil
			i = start - 1
		}
	}
	return spans
}

// quoteStop reports whether the $ at s[i] begins what textSpans cannot
// see past: $(, $((, $[ or a ${…} other than ${name}.
func quoteStop(s string, i int) bool {
	rest := s[i+1:]
	switch {
	case strings.HasPrefix(rest, "(") || strings.HasPrefix(rest, "["):
		return true
	case strings.HasPrefix(rest, "{"):
		name, _, ok := strings.Cut(rest[1:], "}")
		return !ok || !syntax.ValidName(name)
	}
	return false
}

// quoteEnd returns the index of the quote that ends the one at s[i], or
// -1: a single quote ends at the next, unless ansi ($'…', where a
// backslash escapes); a double quote at the next one not escaped, and -1
// when what is in it runs or expands beyond ${name} (see quoteStop).
func quoteEnd(s string, i int, ansi bool) int {
	q := s[i]
	if q == '\'' && !ansi {
		if end := strings.IndexByte(s[i+1:], q); end >= 0 {
			return i + 1 + end
		}
		return -1
	}
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\':
			j++
		case s[j] == q:
			return j
		case q == '"' && (s[j] == '`' || s[j] == '$' && quoteStop(s, j)):
			return -1
		}
	}
	return -1
}

// textRead returns, keyed by kind, start and stop as textSpan has them,
// the texts the parser read in f, the dotted line code (s before the
// dots) where the checker looks: the single and double quotes of the
// words of simple commands and redirections, but $'…' and $"…", and the
// text of here-documents whose delimiter is quoted, in statements joined
// by ;, &, &&, || and pipes or grouped in ( … ) and { …; }; a double
// quote only when nothing in it but its plain text was made dots.
// Anywhere else the line is refused anyway. It walks the statements
// without recursion.
func textRead(f *syntax.File, s, code string) map[[3]int]bool {
	read := map[[3]int]bool{}
	words := func(ws ...*syntax.Word) {
		for _, w := range ws {
			for _, p := range w.Parts {
				switch p := p.(type) {
				case *syntax.SglQuoted:
					if !p.Dollar {
						read[[3]int{'\'', int(p.Left.Offset()) + 1, int(p.Right.Offset())}] = true
					}
				case *syntax.DblQuoted:
					plain := !p.Dollar
					for _, q := range p.Parts {
						if _, lit := q.(*syntax.Lit); !lit && source(q, code) != source(q, s) {
							plain = false
						}
					}
					if plain {
						read[[3]int{'"', int(p.Left.Offset()) + 1, int(p.Right.Offset())}] = true
					}
				}
			}
		}
	}
	stmts := f.Stmts
	for len(stmts) > 0 {
		st := stmts[len(stmts)-1]
		stmts = stmts[:len(stmts)-1]
		for _, r := range st.Redirs {
			switch {
			case r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc:
				words(r.Word)
			case r.Hdoc != nil && len(r.Hdoc.Parts) > 0 && strings.ContainsAny(source(r.Word, code), "'\""):
				read[[3]int{'<', int(r.Hdoc.Pos().Offset()), int(r.Hdoc.End().Offset())}] = true
			}
		}
		switch cmd := st.Cmd.(type) {
		case *syntax.CallExpr:
			words(cmd.Args...)
		case *syntax.BinaryCmd:
			stmts = append(stmts, cmd.X, cmd.Y)
		case *syntax.Subshell:
			stmts = append(stmts, cmd.Stmts...)
		case *syntax.Block:
			stmts = append(stmts, cmd.Stmts...)
		}
	}
	return read
}

type checker struct {
	src     string
	places  places
	cmds    []string
	refused *refusal
}

func (c *checker) refuse(r *refusal) {
	if c.refused == nil {
		c.refused = r
	}
}

// comments refuses a comment that the parser reads otherwise than the
// shells: it continues one that ends in a backslash onto the next line,
// which no shell does. Only the nodes stmt admits are looked at: a
// comment anywhere else is inside a construct that is refused anyway.
func (c *checker) comments(cms []syntax.Comment) {
	for _, cm := range cms {
		if strings.ContainsAny(cm.Text, "\\\r") {
			c.refuse(unsupported("a comment with a backslash in it"))
		}
	}
}

// stmt checks st and what it holds. It descends into a chain of
// pipelines, && and || (a BinaryCmd whose X is the chain before it: "a |
// b | c" is ((a | b) | c)) in a loop, so that a chain of thousands of
// commands nests no call deeper than one; it recurses only into
// subshells and blocks, which MaxNesting bounds.
func (c *checker) stmt(st *syntax.Stmt) {
	var rest []*syntax.Stmt // the chain's right-hand sides, last first
	for {
		c.header(st)
		b, ok := st.Cmd.(*syntax.BinaryCmd)
		if !ok {
			break
		}
		rest = append(rest, b.Y)
		st = b.X
	}
	c.command(st)
	for i := len(rest) - 1; i >= 0; i-- {
		c.stmt(rest[i])
	}
}

// header checks what a statement has besides its command: comments,
// coprocess and redirections.
func (c *checker) header(st *syntax.Stmt) {
	c.comments(st.Comments)
	if st.Coprocess || st.Disown {
		c.refuse(unsupported("a coprocess"))
	}
	for _, r := range st.Redirs {
		c.redirect(r)
	}
}

// command checks the command of st, which is no BinaryCmd.
func (c *checker) command(st *syntax.Stmt) {
	switch cmd := st.Cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		if len(cmd.Assigns) > 0 {
			c.refuse(unsupported("an environment assignment (%s=…)", cmd.Assigns[0].Name.Value))
			return
		}
		// POSIX sh reads bash's "a &>f b" as "a &" and ">f b", a second
		// command: &> must come after every word.
		for _, r := range st.Redirs {
			if (r.Op == syntax.RdrAll || r.Op == syntax.AppAll) && len(cmd.Args) > 0 && r.OpPos.Offset() < cmd.Args[len(cmd.Args)-1].Pos().Offset() {
				c.refuse(unsupported("&> followed by more words, which POSIX sh runs as another command"))
				return
			}
		}
		words := make([]string, 0, len(cmd.Args)+1)
		for _, w := range cmd.Args {
			c.word(w)
			words = append(words, source(w, c.src))
		}
		// Text on stdin is one more thing the command is given, as a
		// word would be: Bash(cat:*) admits it, Bash(sh) does not.
		if len(words) > 0 && givesText(st) {
			words = append(words, "<<")
		}
		if len(words) > 0 {
			c.cmds = append(c.cmds, strings.Join(words, " "))
		}
	case *syntax.Subshell:
		c.group(st, cmd.Stmts, cmd.Last)
	case *syntax.Block:
		c.group(st, cmd.Stmts, cmd.Last)
	default:
		c.refuse(unsupported("%s", construct(cmd)))
	}
}

// group checks the statements of a subshell or block st and its last
// comments. Text on its stdin would go to any of them: refused.
func (c *checker) group(st *syntax.Stmt, stmts []*syntax.Stmt, last []syntax.Comment) {
	if givesText(st) {
		c.refuse(unsupported("a here-document or here-string given to a block or subshell"))
	}
	c.comments(last)
	for _, s := range stmts {
		c.stmt(s)
	}
}

// construct names a compound command in words.
func construct(cmd syntax.Command) string {
	switch cmd.(type) {
	case *syntax.IfClause:
		return "an if statement"
	case *syntax.WhileClause:
		return "a while or until loop"
	case *syntax.ForClause:
		return "a for loop"
	case *syntax.CaseClause:
		return "a case statement"
	case *syntax.FuncDecl:
		return "a function definition"
	case *syntax.ArithmCmd, *syntax.LetClause:
		return "an arithmetic command"
	case *syntax.TestClause:
		return "a [[ … ]] test"
	case *syntax.DeclClause:
		return "a declaration (declare, export, local…)"
	case *syntax.TimeClause:
		return "a time command"
	}
	return fmt.Sprintf("a %T", cmd)
}

// word refuses every part of w that is not a literal, a quote of
// literals and plain expansions, or a plain expansion.
func (c *checker) word(w *syntax.Word) {
	for _, p := range w.Parts {
		c.part(p)
	}
}

func (c *checker) part(p syntax.WordPart) {
	switch p := p.(type) {
	case *syntax.Lit:
	case *syntax.SglQuoted:
		if p.Dollar {
			c.refuse(unsupported("an ANSI-C quote $'…'"))
		}
	case *syntax.DblQuoted:
		if p.Dollar {
			c.refuse(unsupported("a locale quote $\"…\""))
		}
		for _, q := range p.Parts {
			c.part(q)
		}
	case *syntax.ParamExp:
		if !plainExpansion(p, c.src) {
			c.refuse(unsupported("the expansion %s (only $name and ${name} are vetted)", skillerr.Clip(source(p, c.src))))
		}
	case *syntax.CmdSubst:
		c.refuse(&refusal{ReasonCommandSubstitution, "a command substitution"})
	case *syntax.ProcSubst:
		c.refuse(&refusal{ReasonCommandSubstitution, "a process substitution"})
	case *syntax.ArithmExp:
		c.refuse(unsupported("an arithmetic expansion"))
	case *syntax.ExtGlob:
		c.refuse(unsupported("an extended glob"))
	default:
		c.refuse(unsupported("%s", source(p, c.src)))
	}
}

// plainExpansion reports whether p, in the command line src, is $name or
// ${name} and nothing more: decided on its text, so that every operator
// the parser knows, now or in a later version, counts as more.
func plainExpansion(p *syntax.ParamExp, src string) bool {
	if p.Param == nil || p.NestedParam != nil {
		return false
	}
	s := source(p, src)
	return s == "$"+p.Param.Value || s == "${"+p.Param.Value+"}"
}

// source is n as written in src.
func source(n syntax.Node, src string) string {
	return src[n.Pos().Offset():n.End().Offset()]
}

// givesText reports whether st gives its command text on stdin: a
// here-document or here-string.
func givesText(st *syntax.Stmt) bool {
	return slices.ContainsFunc(st.Redirs, func(r *syntax.Redirect) bool {
		return r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc || r.Op == syntax.WordHdoc
	})
}

// heredoc refuses a here-document unless it only gives its command text
// on stdin, as a pipe from echo would: its delimiter is a plain name,
// quoted or not (so the parser and the shells end it on the same line),
// and its body, when the delimiter is not quoted and the shell expands
// the body, holds no $, ` or \ (so nothing in it runs, and no line
// continuation moves where it ends). A quoted delimiter's body is text,
// to bash; where the parser reads it as expanded all the same (<<""E,
// whose quotes are empty), the two disagree, and it is held to the
// unquoted rule.
func (c *checker) heredoc(r *syntax.Redirect) {
	delim := source(r.Word, c.src)
	name := strings.NewReplacer("'", "", `"`, "").Replace(delim)
	if name == "" || strings.TrimLeft(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != "" || !literalWord(r.Word, false) {
		c.refuse(unsupported("a here-document whose delimiter is not a plain name"))
		return
	}
	expanded := func() bool {
		return name == delim || slices.ContainsFunc(r.Hdoc.Parts, func(p syntax.WordPart) bool { _, lit := p.(*syntax.Lit); return !lit })
	}
	if r.Hdoc != nil && len(r.Hdoc.Parts) > 0 && expanded() && strings.ContainsAny(source(r.Hdoc, c.src), "$`\\") {
		c.refuse(unsupported("a here-document whose delimiter is not quoted and whose text holds $, ` or \\ (quote the delimiter: <<'EOF')"))
	}
}

// redirect refuses a redirection unless it copies or closes a descriptor
// (2>&1, >&-), uses /dev/null, or names a file a pattern lists.
func (c *checker) redirect(r *syntax.Redirect) {
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		c.heredoc(r)
		return
	case syntax.WordHdoc:
		c.word(r.Word) // <<<word: an argument's expansions, to stdin
		return
	}
	if r.N != nil && strings.HasPrefix(r.N.Value, "{") {
		c.refuse(unsupported("a {name} redirection"))
		return
	}
	// The target must be a plain name that the shell reads as written,
	// as pathMatches reads it: no quote or escape (".\./x" is "../x"
	// to the shell), tilde or glob (bash globs a target, and before 5.2
	// ".?" matched "..").
	lit := r.Word.Lit()
	if lit == "" || lit != source(r.Word, c.src) || strings.Contains(lit, `\`) || !literalWord(r.Word, false) {
		c.refuse(&refusal{ReasonRedirection, "a redirection to a target that is not a plain file name"})
		return
	}
	var specs []string
	switch r.Op {
	case syntax.DplOut, syntax.DplIn:
		if lit == "-" || strings.Trim(lit, "0123456789") == "" {
			return
		}
		specs = c.places.write
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.ClbOut:
		specs = c.places.write
	case syntax.RdrIn:
		specs = c.places.read
	default:
		c.refuse(unsupported("the redirection %s", r.Op))
		return
	}
	if lit == "/dev/null" {
		return
	}
	if len(lit) > MaxPath { // as long as no path is, and costly to match
		c.refuse(&refusal{ReasonRedirection, fmt.Sprintf("a redirection to or from a name of %d bytes (a path is at most %d)", len(lit), MaxPath)})
		return
	}
	for _, spec := range specs {
		if pathMatches(spec, lit, c.places.dir) {
			return
		}
	}
	c.refuse(&refusal{ReasonRedirection, fmt.Sprintf("a redirection to or from %q", skillerr.Clip(lit))})
}
