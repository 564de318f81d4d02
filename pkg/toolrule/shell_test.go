//go:build !(js && wasm)

package toolrule

import (
	"math/rand"
	"os/exec"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestCommandSplitAgreesWithShells checks the command splitter against
// the shells themselves: random command lines made of the bytes and
// words that matter to a shell are vetted with Bash(git:*), and every one
// admitted is run by bash and by POSIX sh (dash), where git is a function
// that does nothing and any other command reports itself. None may run
// anything but git.
func TestCommandSplitAgreesWithShells(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a shell a few thousand times")
	}
	tokens := []string{
		"git ", "git", "rm ", "x", " ", "\t", "\n", "\r", "\v", "\f", "\u00a0",
		";", "&", "|", "&&", "||", ";;", "|&", ">&", "&>", ">|", "2>&1", "<", ">", "<<", "<(",
		"#", " #", "a#", "'#'", "\\#", "'", "\"", "\\", "\\ ", "\\;", "\\'", "\\\"", "\\\n", "`",
		"$", "$x", "$#", "$'", "$\"", "$((", "${x}", "${x:-a}", "${#x}", "${x#y}", "${x:-a;b #c}",
		"{", "}", "(", ")", "!", "*", "~", "=", "[[", "]]", "if ", "then ", "fi", "case ", " in ", "esac", "function f", "coproc ",
		"<<E\n", "<<'E'\n", "<<-E\n", "<<\"E\"", "<<<", "E", "\nE\n", "\tE\n", "E \n", "\\\nE\n",
	}
	// A few bytes that change how a line splits, often enough together
	// to make the rarer combinations.
	few := []string{"git ", "rm ", " #", "'", "\"", "\n", ";", "&", ">", "\\", " "}
	// And those that end a here-document, or seem to.
	heredocs := []string{"git ", "rm ", "<<E\n", "<<'E'\n", "<<-E\n", "<<-'E'\n", "<<E <<F\n", "E\n", "F\n", "\tE\n", "E", "\n", "\\\n", "'", "\"", " ", ";"}
	for _, shell := range []string{"bash", "dash"} {
		if _, err := exec.LookPath(shell); err != nil {
			t.Logf("no %s here", shell)
			continue
		}
		rng := rand.New(rand.NewSource(2))
		admitted := 0
		for n := range 2000 {
			var b strings.Builder
			b.WriteString("git ")
			alphabet := tokens
			switch n % 3 {
			case 1:
				alphabet = few
			case 2:
				alphabet = heredocs
			}
			for k := rng.Intn(10); k >= 0; k-- {
				b.WriteString(alphabet[rng.Intn(len(alphabet))])
			}
			in := b.String()
			if Check([]string{"Bash(git:*)"}, "Bash", in, "") != nil {
				continue
			}
			admitted++
			script := "git(){ :; }; command_not_found_handle(){ echo RAN \"$1\"; }; rm(){ echo RAN rm; }\n" + in
			cmd := exec.Command(shell, "-c", script)
			cmd.Dir = t.TempDir()
			out, _ := cmd.CombinedOutput()
			if strings.Contains(string(out), "RAN") || strings.Contains(string(out), "not found") {
				parts, _ := commands(in, places{})
				t.Errorf("%s: %q was admitted as %q, but runs another command: %q", shell, in, parts, out)
			}
		}
		if admitted < 100 {
			t.Errorf("%s: only %d command lines were admitted; the test tests little", shell, admitted)
		}
	}
}

// TestWithoutTextAgreesWithParser: on random lines of here-documents,
// quotes, substitutions and parentheses, whenever withoutText makes dots
// of some text, the parser reads the line and the dotted line alike:
// the same syntax tree but for the texts of here-documents, and those
// the same but for the dots.
func TestWithoutTextAgreesWithParser(t *testing.T) {
	tokens := []string{"<<'E'\n", "<<\"E\"\n", "<<-'E'\n", "<<E\n", "<< 'E'", "<<'E' <<'F'\n", "E\n", "F\n", "\tE\n", "E",
		"\n", "((", "))", "'", "\"", "$(", ")", "`", "\\\n", "\\", "#", " ", "git ", "x", ";", "|", "{ ", "}", "<<<"}
	// A syntax tree as text without the texts of its here-documents,
	// and those texts.
	read := func(s string) (string, []string, error) {
		f, err := parse(s)
		if err != nil {
			return "", nil, err
		}
		var texts []string
		syntax.Walk(f, func(n syntax.Node) bool {
			if r, ok := n.(*syntax.Redirect); ok && r.Hdoc != nil {
				var b strings.Builder
				syntax.NewPrinter().Print(&b, r.Hdoc)
				texts = append(texts, b.String())
				r.Hdoc = nil
			}
			return true
		})
		var b strings.Builder
		syntax.NewPrinter().Print(&b, f)
		return b.String(), texts, nil
	}
	rng := rand.New(rand.NewSource(3))
	dotted := 0
	for range 20000 {
		var b strings.Builder
		for k := rng.Intn(14); k >= 0; k-- {
			b.WriteString(tokens[rng.Intn(len(tokens))])
		}
		in := b.String()
		code := withoutText(in)
		if code == in {
			continue
		}
		dotted++
		tree, texts, err := read(in)
		dtree, dtexts, derr := read(code)
		if err != nil || derr != nil || tree != dtree || len(texts) != len(dtexts) {
			t.Fatalf("%q, dotted %q: read as\n%s (%v)\nand\n%s (%v)", in, code, tree, err, dtree, derr)
		}
		for i := range texts {
			if len(texts[i]) != len(dtexts[i]) {
				t.Fatalf("%q, dotted %q: the text %q read as %q", in, code, texts[i], dtexts[i])
			}
			for k := range texts[i] {
				if texts[i][k] != dtexts[i][k] && dtexts[i][k] != '.' {
					t.Fatalf("%q, dotted %q: the text %q read as %q", in, code, texts[i], dtexts[i])
				}
			}
		}
	}
	if dotted < 100 {
		t.Errorf("only %d lines were dotted; the test tests little", dotted)
	}
}
