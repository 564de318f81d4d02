package wasmrun

import (
	"slices"

	"github.com/skillfs/skillfs/pkg/toolrule"
)

// The paths a module sees.
const (
	SkillDir   = "/skill"   // the skill's own files, read-only, always
	ScratchDir = "/scratch" // writable and discarded with the run, when granted
)

// Grants is what a skill's allowed-tools give its module, after seed 003's
// capability table as it applies in a browser, where the only file system
// is the skill's own and WASI preview 1 has no sockets to open:
//
//	Read, Grep, Glob, LS        read: /skill (read-only, which every module has)
//	Write, Edit, MultiEdit      write: a writable /scratch, discarded after the run
//	Bash, Terminal              denied: there is no shell or host file system
//	WebSearch, WebFetch, Fetch  denied: nothing is reachable from WASI preview 1
type Grants struct {
	Scratch bool `json:"scratch"`
	// Permissions are what the run gets, as "read:/skill", "write:/scratch".
	Permissions []string `json:"permissions"`
	// Denied are the allowed-tools that grant nothing here, each with why.
	Denied []Denial `json:"denied"`
}

// Denial is an allowed-tools entry that grants a module nothing.
type Denial struct {
	Tool   string `json:"tool"`
	Reason string `json:"reason"`
}

// GrantsFor reads allowed-tools patterns (as in SKILL.md) into Grants.
func GrantsFor(allowedTools []string) Grants {
	g := Grants{Permissions: []string{"read:" + SkillDir}, Denied: []Denial{}}
	for _, r := range toolrule.Parse(allowedTools) {
		switch r.Tool {
		case "Write", "Edit", "MultiEdit":
			g.Scratch = true
		case "Bash", "Terminal":
			g.deny(r.Tool, "no shell or host file system exists in the browser")
		case "WebSearch", "WebFetch", "Fetch":
			g.deny(r.Tool, "WASI preview 1 has no network: nothing is reachable from the module")
		}
	}
	if g.Scratch {
		g.Permissions = append(g.Permissions, "write:"+ScratchDir)
	}
	return g
}

func (g *Grants) deny(tool, reason string) {
	if !slices.ContainsFunc(g.Denied, func(d Denial) bool { return d.Tool == tool }) {
		g.Denied = append(g.Denied, Denial{Tool: tool, Reason: reason})
	}
}
