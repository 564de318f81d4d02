package toolrule

import (
	"errors"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// FuzzCheck checks the property Check promises for Bash(git:*) and
// Write(out/**), with a walk of the whole syntax tree that is independent
// of the checker's own descent: every command line it admits parses, every
// simple command in it is git, and nothing anywhere in it substitutes,
// evaluates, assigns or defines; and it redirects to no file but one that
// mvdan.cc/sh's expander, reading no variable and no directory, finds
// in out/ (or out itself, which out/** names too), as written; and no
// comment in it holds a backslash, which the parser reads otherwise than
// the shells.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"git status", "git log > /dev/null 2>&1", "git status '$(touch /tmp/p)'; git log ${_@P}",
		"git log ${x:1} ${a[i]}", "(git status) && { git log; }", "git a #\\\nrm", "git status\r#; rm",
		"git log &>/dev/null rm -rf ~", "X=1 git log", "git commit -m \"$(id)\"", "git log <<EOF\nx\nEOF", "git log <<'E'\n$(id)\nE", "git log <<-E\n\tx\n\tE\nrm", "git log <<'E'\n" + strings.Repeat("((", 200) + "\nE\n",
		"git log > out/a.txt", "git log > out/.\\./.\\./x", "git log > ~/x", "git log > out/.?/x", "git log >out/../x",
		"{ git log\n# a \\\n}", "(git log # a \\\n)", "git log && # a \\\n git x", "git log | git x # a \\\nrm", "git <<''E\n$()E",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if Check([]string{"Bash(git:*)", "Write(out/**)"}, "Bash", in, "") != nil {
			return
		}
		env, cfg := recording()
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(in), "")
		if err != nil {
			t.Fatalf("%q was admitted but does not parse: %v", in, err)
		}
		syntax.Walk(file, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.Comment:
				if strings.ContainsAny(n.Text, "\\\r") {
					t.Fatalf("%q was admitted with the comment %q", in, n.Text)
				}
			case *syntax.CallExpr:
				if len(n.Assigns) > 0 {
					t.Fatalf("%q was admitted with an assignment", in)
				}
				if len(n.Args) > 0 && source(n.Args[0], in) != "git" {
					t.Fatalf("%q was admitted with a command that is not git", in)
				}
			case *syntax.ParamExp:
				if !plainExpansion(n, in) {
					t.Fatalf("%q was admitted with the expansion %s", in, source(n, in))
				}
			case *syntax.Redirect:
				if n.Op == syntax.Hdoc || n.Op == syntax.DashHdoc || n.Op == syntax.WordHdoc {
					break // text to stdin; the walk vets what is expanded in it
				}
				w := n.Word.Lit()
				if w == "/dev/null" || w == "-" || strings.Trim(w, "0123456789") == "" {
					break
				}
				fields, err := expand.Fields(cfg, n.Word)
				if err != nil || len(fields) != 1 || fields[0] != source(n.Word, in) || len(env.read) > 0 ||
					path.Clean(fields[0]) != "out" && !strings.HasPrefix(path.Clean(fields[0]), "out/") {
					t.Fatalf("%q was admitted with a redirection to %q (%q, %v, read %q)", in, source(n.Word, in), fields, err, env.read)
				}
			case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ExtGlob, *syntax.Assign,
				*syntax.FuncDecl, *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause,
				*syntax.DeclClause, *syntax.LetClause, *syntax.ArithmCmd, *syntax.TestClause, *syntax.CoprocClause:
				t.Fatalf("%q was admitted with %T", in, n)
			}
			return true
		})
	})
}

// FuzzCommandSpec checks, for any specifier that is a whole command or a
// prefix before ":*" without other wildcards, that the words of an
// admitted command line which the specifier covers run as written: mvdan.cc/sh's
// own expander, asked to expand them, reads no variable of the shell's
// environment (a parameter, a tilde's HOME) and no directory (a glob),
// and runs nothing.
func FuzzCommandSpec(f *testing.F) {
	for _, s := range [][2]string{
		{"$1:*", "$1 rm"}, {"$@", "$@"}, {"${#}", "${#}"}, {"\"$*\"", "\"$*\""}, {"~/bin/x:*", "~/bin/x y"},
		{"make P=~/x", "make P=~/x"}, {"ls ?", "ls ?"}, {"cat [ab]", "cat [ab]"}, {"echo '$HOME'", "echo '$HOME'"},
		{"echo \\$1 \"\\$2\" 5$", "echo \\$1 \"\\$2\" 5$"}, {"git diff HEAD~1:*", "git diff HEAD~1 $x"}, {"echo {a,b}", "echo {a,b}"},
		{"~/bin/x", "~/bin/x"}, {"/opt/?/x", "/opt/?/x"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, spec, in string) {
		pattern := "Bash(" + spec + ")"
		rules := Parse([]string{pattern})
		if len(rules) != 1 || Check([]string{pattern}, "Bash", in, "") != nil {
			return
		}
		spec = rules[0].Spec // as Parse trims it
		prefix := strings.TrimSuffix(spec, ":*")
		if strings.Contains(prefix, "*") {
			return
		}
		p := syntax.NewParser(syntax.Variant(syntax.LangBash))
		specFile, err := p.Parse(strings.NewReader(prefix), "")
		if err != nil || len(specFile.Stmts) != 1 {
			t.Fatalf("Bash(%s) admitted %q, but is not one command", spec, in)
		}
		covered := len(specFile.Stmts[0].Cmd.(*syntax.CallExpr).Args)
		file, err := p.Parse(strings.NewReader(in), "")
		if err != nil {
			t.Fatalf("Bash(%s) admitted %q, which does not parse: %v", spec, in, err)
		}
		env, cfg := recording()
		syntax.Walk(file, func(n syntax.Node) bool {
			if call, ok := n.(*syntax.CallExpr); ok {
				if _, err := expand.Fields(cfg, call.Args[:min(covered, len(call.Args))]...); err != nil {
					t.Fatalf("Bash(%s) admitted %q, whose words do not expand: %v", spec, in, err)
				}
			}
			return true
		})
		if len(env.read) > 0 {
			t.Fatalf("Bash(%s) admitted %q, whose words read %q", spec, in, env.read)
		}
	})
}

// readEnv is an environment in which every variable is set, and which
// records the names read, except IFS and PWD, which every expansion reads.
type readEnv struct{ read []string }

// recording returns an expander's configuration that records, in env,
// the variables and directories an expansion reads.
func recording() (*readEnv, *expand.Config) {
	env := &readEnv{}
	return env, &expand.Config{Env: env, ReadDir2: func(dir string) ([]fs.DirEntry, error) {
		env.read = append(env.read, "directory "+dir)
		return nil, nil
	}}
}

func (e *readEnv) Get(name string) expand.Variable {
	if name != "IFS" && name != "PWD" {
		e.read = append(e.read, "variable "+name)
	}
	return expand.Variable{Set: true, Kind: expand.Indexed, List: []string{"x"}}
}

func (e *readEnv) Each(func(string, expand.Variable) bool) {}

// FuzzWildcard checks wildcard.match, which takes each piece at its
// leftmost place, against the regular expression of the same pattern,
// which tries every place: for commands (* matches anything) and path
// segments (* matches no byte pathWildOK refuses).
func FuzzWildcard(f *testing.F) {
	for _, s := range [][2]string{
		{"a*b", "aab"}, {"*a*a*b", "aaaab"}, {"a**b*", "ab"}, {"*ab*ab", "abab"}, {"x*;*y", "x;y"}, {"*", ""},
		{"a*", "a;"}, {"*.md", "a.md.md"}, {"**a", "ba"}, {"ab*ba", "aba"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		w := newWildcard(pattern)
		for _, c := range []struct {
			ok   func(byte) bool
			star string
		}{{nil, "(?s:.*)"}, {pathWildOK, "[^;&|`$<>\\n\\r/\\\\:{}\\x00]*"}} {
			pieces := strings.Split(pattern, "*")
			for i, p := range pieces {
				pieces[i] = regexp.QuoteMeta(p)
			}
			re, err := regexp.Compile(`\A` + strings.Join(pieces, c.star) + `\z`)
			if err != nil {
				t.Skip(err) // pattern not valid UTF-8
			}
			if got, want := w.match(s, c.ok, nil), re.MatchString(s); got != want {
				t.Fatalf("%q against %q (ok %v): %v, want %v", s, pattern, c.ok != nil, got, want)
			}
		}
	})
}

// FuzzNesting checks the bound tooDeep keeps: a command line it lets
// through is one the parser reads nesting at most MaxNesting constructs
// that open with (, [, { or !, or unary operators, one in another (see
// nesting), however quotes, escapes, here-documents and substitutions
// are mixed in it to hide them from the count that leaves quoted text
// out (withoutText).
func FuzzNesting(f *testing.F) {
	deep := strings.Repeat("$((", MaxNesting+1) + "1" + strings.Repeat("))", MaxNesting+1)
	parens := strings.Repeat("(", MaxNesting+1)
	for _, s := range []string{
		"python -c '" + parens + "'", "node -e \"" + parens + "\"", "git log '" + parens, "git log \"" + parens,
		"echo \\'" + deep + "\\'", "echo $'\\'' " + deep + " '", "echo \"\\\"\" " + deep + " \"\"",
		"echo \"$(echo ')' " + deep + ")\"", "echo \"`echo '" + parens + "'`\"", "echo \"$" + parens + "\"",
		"echo \"$\\\n" + parens + "\"", "echo \"${x:-'}'" + deep + "}\"", "echo # '\n" + deep + " '",
		"cat <<'E'\n" + parens + "\nE\n", "cat <<'E' '\n" + deep + "\nE\n'", "cat <<E\n'\nE\n" + deep + "'",
		"cat <<'E'x\n" + parens + "\nE\n" + deep + "\nEx\n", "echo '" + parens + "' " + deep,
		"echo '" + parens + "' \"" + strings.Repeat("$((", MaxNesting/2) + "1" + strings.Repeat("))", MaxNesting/2) + "\"",
		// Where the parser reads no quote or here-document that the
		// shape has: in arithmetic, and in an extended glob (which it
		// reads to its closing parenthesis, quotes and all).
		"((x<<'E'))\necho $((" + parens + ")\nE\n", "echo @(')$((" + parens + "' ')",
		// The parser leaves a NUL out, so that this here-document ends
		// at its second line.
		"cat <<'E('\nE\x00(\necho $((" + parens + "\nE(\n",
		"[[ " + strings.Repeat("! ", MaxNesting+1) + "x ]] '" + parens + "'", "echo $((" + strings.Repeat("~", MaxNesting+1) + "1)) '~'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if len(in) > MaxInput || tooDeep(in) != nil {
			return
		}
		if opens, unary, ok := nesting(in); ok && (opens > MaxNesting || unary > MaxNesting) {
			t.Fatalf("%.80q… (%d bytes) was let through, but the parser nests %d constructs and %d unary operators", in, len(in), opens, unary)
		}
	})
}

// nesting parses s and returns how many constructs that open with (, [,
// { or ! it reads one inside another at most (subshells, blocks,
// substitutions, ${…}, arithmetic, (…) in arithmetic or [[ … ]],
// extended globs, negations in [[ … ]]) and the longest chain of unary
// operators each in the one before; false when it cannot tell. Where s
// does not parse, it measures what the parser descended into before the
// error: s up to it, parsed recovering from missing closing tokens.
func nesting(s string) (opens, unary int, ok bool) {
	var f *syntax.File
	for range 10 {
		var err error
		f, err = syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.RecoverErrors(1000)).Parse(strings.NewReader(s), "")
		var perr syntax.ParseError
		if err == nil {
			break
		} else if !errors.As(err, &perr) || int(perr.Pos.Offset()) >= len(s) {
			return 0, 0, false
		}
		s, f = s[:perr.Pos.Offset()], nil
	}
	if f == nil {
		return 0, 0, false
	}
	type level struct{ opens, unary int }
	stack := []level{{}}
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		l := level{opens: stack[len(stack)-1].opens}
		switch n := n.(type) {
		case *syntax.Subshell, *syntax.Block, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ArithmCmd,
			*syntax.ParenArithm, *syntax.ParenTest, *syntax.ExtGlob:
			l.opens++
		case *syntax.CmdSubst:
			if !n.Backquotes { // nesting backquotes doubles the backslashes a level
				l.opens++
			}
		case *syntax.ParamExp:
			if !n.Short {
				l.opens++
			}
		case *syntax.UnaryTest:
			if n.Op == syntax.TsNot {
				l.opens++
				l.unary = stack[len(stack)-1].unary + 1
			}
		case *syntax.UnaryArithm:
			l.unary = stack[len(stack)-1].unary + 1
		}
		opens, unary = max(opens, l.opens), max(unary, l.unary)
		stack = append(stack, l)
		return true
	})
	return opens, unary, true
}

// FuzzCommandWildcard checks, for specifiers whose * stands in the
// program's name, that every command they admit runs a program there as
// mvdan.cc/sh's expander reads the name (quotes, escapes, braces and all),
// reading no variable and no directory: ./scripts/* and ./scripts/*:* one
// in scripts/, never above it, and * --help * one named as written.
func FuzzCommandWildcard(f *testing.F) {
	for _, s := range []string{
		"./scripts/build.sh x", "./scripts/../../bin/rm -rf ~", "./scripts/.{.,}/.{.,}/bin/rm", "./scripts/x'/..'/..'/y",
		"./scripts/.?/.?/bin/rm", "./scripts/x\\/..\\/..\\/y", "./scripts/$x", "~/x --help", "$x --help", "{a,b} --help", "a* --help", "0\x00 --help",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, pattern := range []string{"Bash(./scripts/*)", "Bash(./scripts/*:*)", "Bash(* --help *)"} {
			if Check([]string{pattern}, "Bash", in, "") != nil {
				continue
			}
			file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(in), "")
			if err != nil {
				t.Fatalf("%s admitted %q, which does not parse: %v", pattern, in, err)
			}
			env, cfg := recording()
			syntax.Walk(file, func(n syntax.Node) bool {
				call, ok := n.(*syntax.CallExpr)
				if !ok || len(call.Args) == 0 {
					return true
				}
				fields, err := expand.Fields(cfg, call.Args[0])
				if err != nil || len(fields) == 0 || len(env.read) > 0 {
					t.Fatalf("%s admitted %q, whose program is %q (%v, read %q)", pattern, in, fields, err, env.read)
				}
				if p := path.Clean(fields[0]); strings.HasPrefix(pattern, "Bash(./") && p != "scripts" && !strings.HasPrefix(p, "scripts/") ||
					pattern == "Bash(* --help *)" && (len(fields) != 1 || fields[0] != source(call.Args[0], in)) {
					t.Fatalf("%s admitted %q, which runs %q", pattern, in, fields)
				}
				return true
			})
		}
	})
}
