package toolrule

import (
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
		"{ git log\n# a \\\n}", "(git log # a \\\n)", "git log && # a \\\n git x", "git log | git x # a \\\nrm",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if Check([]string{"Bash(git:*)", "Write(out/**)"}, "Bash", in, "") != nil {
			return
		}
		env := &readEnv{}
		cfg := &expand.Config{Env: env, ReadDir2: func(dir string) ([]fs.DirEntry, error) {
			env.read = append(env.read, "directory "+dir)
			return nil, nil
		}}
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
		env := &readEnv{}
		cfg := &expand.Config{Env: env, ReadDir2: func(dir string) ([]fs.DirEntry, error) {
			env.read = append(env.read, "directory "+dir)
			return nil, nil
		}}
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
			if got, want := w.match(s, c.ok), re.MatchString(s); got != want {
				t.Fatalf("%q against %q (ok %v): %v, want %v", s, pattern, c.ok != nil, got, want)
			}
		}
	})
}
