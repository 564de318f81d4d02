package resolver

import (
	"cmp"
	"slices"
	"strings"
)

// Root is where the skills are mounted in the browser file system.
const Root = "/skills"

// Skill is what the resolver needs to know of an installed skill. The
// session layer fills it from registry metadata; the resolver never reads
// storage.
type Skill struct {
	// ID is the skill's directory name under Root. It is unique.
	ID string
	// Name and Description are the frontmatter's; WhenToUse is Claude
	// Code's when_to_use, which routing also reads.
	Name        string
	Description string
	WhenToUse   string
	// Headings are the titles of SKILL.md's sections, for routing.
	Headings []string

	// DisableModelInvocation leaves the skill out of the catalog and out
	// of automatic routing; the user can still invoke it by name.
	DisableModelInvocation bool
	// UserInvocable is whether the user may invoke the skill by name.
	UserInvocable bool

	// AllowedTools are allowed-tools patterns such as "Read" or
	// "Bash(git:*)"; see CheckTool.
	AllowedTools []string
	// ToolDeps and MCPDeps are the tools and MCP servers the skill needs
	// once activated.
	ToolDeps []string
	MCPDeps  []string

	// Triggers and AntiTriggers are phrases that make routing pick or
	// avoid the skill.
	Triggers     []string
	AntiTriggers []string
	// CostHint is "low", "medium" or "high"; anything else counts as
	// "medium".
	CostHint string
	// ParallelSafe says the skill may run alongside another one.
	ParallelSafe bool
}

// Dir returns the skill's base directory, such as "/skills/pdf-tools/":
// relative paths in its SKILL.md resolve against it.
func (s Skill) Dir() string { return Root + "/" + s.ID + "/" }

// dirPlaceholders are what allowed-tools lines write for the skill's own
// directory: ${SKILL_DIR} and Claude Code's ${CLAUDE_SKILL_DIR}, as
// Substitute reads them in a body, and {baseDir}, trailofbits/skills'
// placeholder ("Bash({baseDir}/scanner.sh:*)"). Left as written, such a
// pattern admits only the placeholder itself, which no shell runs, and
// refuses the script it names. Claude Code's ${CLAUDE_PLUGIN_ROOT} is the
// directory of the plugin the skill came in, which is not installed:
// toolrule lets a pattern that holds it admit nothing.
var dirPlaceholders = []string{"${SKILL_DIR}", "${CLAUDE_SKILL_DIR}", "{baseDir}"}

// inDir returns the allowed-tools pattern rule with the skill's directory,
// without its final slash, in place of each of dirPlaceholders.
func (s Skill) inDir(rule string) string {
	dir := strings.TrimSuffix(s.Dir(), "/")
	for _, p := range dirPlaceholders {
		rule = strings.ReplaceAll(rule, p, dir)
	}
	return rule
}

// Location returns where the model reads the skill, such as
// "/skills/pdf-tools/SKILL.md".
func (s Skill) Location() string { return Root + "/" + s.ID + "/SKILL.md" }

// sortedOrder returns the positions of the skills keep accepts, sorted by
// name and then ID, so that the same skills always come out in the same
// order.
func sortedOrder(skills []Skill, keep func(Skill) bool) []int {
	order := make([]int, 0, len(skills))
	for i, s := range skills {
		if keep(s) {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(i, j int) int {
		return cmp.Or(strings.Compare(skills[i].Name, skills[j].Name), strings.Compare(skills[i].ID, skills[j].ID), i-j)
	})
	return order
}
