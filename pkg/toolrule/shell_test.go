//go:build !(js && wasm)

package toolrule

import (
	"fmt"
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
// single and double quotes, escapes, substitutions and the bytes that
// MaxNesting counts, whenever withoutText makes dots of some text, the
// parser reads the line and the dotted line alike: the same nodes at the
// same offsets, whose texts differ only where the dotted line has a dot
// in place of a byte that openings or unaryRun counts.
func TestWithoutTextAgreesWithParser(t *testing.T) {
	tokens := []string{"<<'E'\n", "<<\"E\"\n", "<<-'E'\n", "<<E\n", "<< 'E'", "<<'E' <<'F'\n", "E\n", "F\n", "\tE\n", "E",
		"\n", "((", "))", "'", "\"", "$(", ")", "`", "\\\n", "\\", "#", " ", "git ", "x", ";", "|", "{ ", "}", "<<<",
		"$'", "$\"", "\\'", "\\\"", "$", "${x}", "${x:-", "$((", "[", "!", "~", "-", "+", "(", "{", "'(('", "\"((\""}
	// The nodes of a syntax tree in order, each as its type, offsets
	// and, for a literal or a single quote, its text.
	read := func(s string) (string, error) {
		f, err := parse(s)
		if err != nil {
			return "", err
		}
		var b strings.Builder
		syntax.Walk(f, func(n syntax.Node) bool {
			if n == nil {
				return true
			}
			fmt.Fprintf(&b, "%T %d %d", n, n.Pos().Offset(), n.End().Offset())
			switch n := n.(type) {
			case *syntax.Lit:
				fmt.Fprintf(&b, " %s", n.Value)
			case *syntax.SglQuoted:
				fmt.Fprintf(&b, " %s", n.Value)
			}
			b.WriteString("\n")
			return true
		})
		return b.String(), nil
	}
	rng := rand.New(rand.NewSource(3))
	dotted := 0
	for range 100000 {
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
		tree, err := read(in)
		dtree, derr := read(code)
		same := err == nil && derr == nil && len(tree) == len(dtree)
		for k := 0; same && k < len(tree); k++ {
			same = tree[k] == dtree[k] || dtree[k] == '.' && strings.IndexByte("([{!~+-", tree[k]) >= 0
		}
		if !same {
			t.Fatalf("%q, dotted %q: read as\n%s (%v)\nand\n%s (%v)", in, code, tree, err, dtree, derr)
		}
	}
	if dotted < 1000 {
		t.Errorf("only %d lines were dotted; the test tests little", dotted)
	}
}

// TestNestingBound is FuzzNesting on random lines: runs of constructs
// that nest, around and between quotes, escapes, here-documents and
// substitutions. Whatever tooDeep lets through, the parser nests no
// deeper than MaxNesting.
func TestNestingBound(t *testing.T) {
	tokens := []string{"'", "\"", "\\'", "\\\"", "$'", "$\"", "\\", "\\\n", "`", "$(", "${x}", "${x:-", "$", ")", "}", "))",
		" ", "\n", "#", "<<'E'\n", "<<E\n", "<<-'E'\n", "E\n", "\tE\n", "@(", "((x<<", "echo ", "git ", "x", ";", "|"}
	// What a run of them may be put in: quotes and what looks like one.
	pairs := [][2]string{{"", ""}, {"'", "'"}, {"\"", "\""}, {"$'", "'"}, {"$\"", "\""}, {"\\'", "\\'"}, {"'", ""}, {"\"", ""},
		{"<<'E'\n", "\nE\n"}, {"<<E\n", "\nE\n"}, {"\"$(", ")\""}, {"\"`", "`\""}, {"@(')", "'"}, {"((x<<'E'))\n", "\nE\n"},
		{"# ", "\n"}, {"\"${x:-", "}\""}, {"${x:-'", "'}"}, {"\"$\\\n", "\""}, {"'\\'", "'"}}
	openers := []string{"(", "( ", "$((", "$(", "((", "${x:-", "@(", "{ ", "! ", "[[ ! ", "~", "- ", "+", "!", "["}
	rng := rand.New(rand.NewSource(4))
	through, dotted := 0, 0
	for range 5000 {
		var b strings.Builder
		b.WriteString("echo ")
		for k := rng.Intn(6); k >= 0; k-- {
			if rng.Intn(3) == 0 {
				n := MaxNesting/2 + rng.Intn(2*MaxNesting)
				around := pairs[rng.Intn(len(pairs))]
				b.WriteString(around[0] + strings.Repeat(openers[rng.Intn(len(openers))], n))
				if rng.Intn(2) == 0 {
					b.WriteString("x" + strings.Repeat(")", n))
				}
				b.WriteString(around[1])
			} else {
				b.WriteString(tokens[rng.Intn(len(tokens))])
			}
		}
		in := b.String()
		if tooDeep(in) != nil {
			continue
		}
		through++
		if withoutText(in) != in {
			dotted++
		}
		if opens, unary, ok := nesting(in); ok && (opens > MaxNesting || unary > MaxNesting) {
			t.Fatalf("%.80q… (%d bytes) was let through, but the parser nests %d constructs and %d unary operators", in, len(in), opens, unary)
		}
	}
	if dotted < 100 {
		t.Errorf("%d lines were let through, %d with text left out; the test tests little", through, dotted)
	}
	t.Logf("%d let through, %d dotted", through, dotted)
}
