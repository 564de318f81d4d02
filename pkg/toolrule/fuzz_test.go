package toolrule

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzCheck checks the property Check promises for Bash(git:*), with a
// walk of the whole syntax tree that is independent of the checker's own
// descent: every command line it admits parses, every simple command in
// it is git, and nothing anywhere in it substitutes, evaluates, assigns,
// defines or redirects to a file.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"git status", "git log > /dev/null 2>&1", "git status '$(touch /tmp/p)'; git log ${_@P}",
		"git log ${x:1} ${a[i]}", "(git status) && { git log; }", "git a #\\\nrm", "git status\r#; rm",
		"git log &>/dev/null rm -rf ~", "X=1 git log", "git commit -m \"$(id)\"", "git log <<EOF\nx\nEOF",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if Check([]string{"Bash(git:*)"}, "Bash", in) != nil {
			return
		}
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(in), "")
		if err != nil {
			t.Fatalf("%q was admitted but does not parse: %v", in, err)
		}
		syntax.Walk(file, func(n syntax.Node) bool {
			switch n := n.(type) {
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
				if w := n.Word.Lit(); w != "/dev/null" && w != "-" && strings.Trim(w, "0123456789") != "" {
					t.Fatalf("%q was admitted with a redirection to %q", in, w)
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
