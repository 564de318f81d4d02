// Command skills is the native authoring tool for Agent Skills, built from
// the same packages skillfs runs in the browser.
//
//	skills validate [--strict] PATH...   check skills; exit 1 if any is invalid
//	skills read-properties PATH [FOLDER] print a skill's properties as JSON
//	skills to-prompt PATH...             print the <available_skills> block
//	skills pack DIR -o FILE.zip          write a deterministic archive
//	skills index DIR -o OUT/index.json   write a discovery index (v0.2.0) and, beside it, its artifacts
//	skills install-check [--digest D] URL  check what installing URL would do
//
// A PATH is a skill directory, a folder of skills, or a .zip/.skill/.tar.gz
// archive.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// Exit codes: 1 means the input is invalid, 2 that the command line is.
const (
	exitInvalid = 1
	exitUsage   = 2
)

const usage = `usage:
  skills validate [--strict] PATH...
  skills read-properties PATH [FOLDER]
  skills to-prompt PATH...
  skills pack DIR -o FILE.zip
  skills index DIR -o OUT/index.json
  skills install-check [--digest sha256:HEX] URL

A PATH is a skill directory, a folder of skills, or a .zip/.skill/.tar.gz
archive. read-properties takes FOLDER, a skill's folder inside PATH, when
PATH holds several skills. index writes the artifacts beside OUT/index.json:
publish OUT/ at /.well-known/agent-skills/.
`

// errInvalid reports that validation found errors, already printed.
var errInvalid = errors.New("invalid")

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	cmds := map[string]func([]string, io.Writer, io.Writer) error{
		"validate":        validate,
		"read-properties": readProperties,
		"to-prompt":       toPrompt,
		"pack":            pack,
		"index":           index,
		"install-check":   installCheck,
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "skills: unknown command %q\n%s", args[0], usage)
		return exitUsage
	}
	err := cmd(args[1:], stdout, stderr)
	var uerr usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &uerr):
		fmt.Fprintf(stderr, "skills %s: %v\n%s", args[0], err, usage)
		return exitUsage
	case errors.Is(err, errInvalid):
		return exitInvalid
	default:
		fmt.Fprintf(stderr, "skills %s: %s\n", args[0], describe(err))
		return exitInvalid
	}
}

type usageError string

func (e usageError) Error() string { return string(e) }

// parseFlags parses a subcommand's flags, reporting problems as usageError.
func parseFlags(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return usageError(err.Error())
	}
	return nil
}
