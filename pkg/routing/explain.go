package routing

import (
	"fmt"
	"strings"
)

// rivalry says why a candidate's Conflict is 0, if it is: another
// candidate scores within conflictMargin of it, or only ones far ahead.
type rivalry int

const (
	rivalNone  rivalry = iota // no other candidate comes within the margin or above
	rivalNear                 // another scores within the margin, above or below
	rivalAhead                // others score higher by more than the margin, none near
)

// explain says in words why c scored as it did, one sentence per
// component worth mentioning, for a UI to show beside the score.
func explain(c Candidate, st Stats, rival rivalry) []string {
	b := c.Breakdown
	var why []string
	switch c.Source {
	case SourceForced:
		why = append(why, "You asked for this skill by name.")
	case SourceTrigger:
		why = append(why, fmt.Sprintf("Your request contains its trigger phrase %s.", quoteList(c.Triggers)))
	case SourceSemantic:
		why = append(why, "Its description is close in meaning to your request.")
	default:
		why = append(why, "It shares words with your request.")
	}
	switch {
	case b.Intent >= 0.99:
		why = append(why, "It matches your request's distinctive words fully.")
	case b.Intent > 0:
		why = append(why, fmt.Sprintf("It matches %d%% of what distinguishes your request.", int(b.Intent*100+0.5)))
	default:
		why = append(why, "None of your request's distinctive words are in its name or description.")
	}
	if runs := st.Success + st.Failure; runs > 0 {
		why = append(why, fmt.Sprintf("It succeeded %d of the %d times it was used.", st.Success, runs))
	}
	if b.Readiness < 1 {
		why = append(why, fmt.Sprintf("Only %d%% of the tools and MCP servers it needs are available now, so its score is halved.", int(b.Readiness*100)))
	}
	switch b.Cost {
	case 1:
		why = append(why, "It is marked as cheap to run.")
	case 0:
		why = append(why, "It is marked as costly to run.")
	}
	switch {
	case c.Forced:
	case rival == rivalNear:
		why = append(why, "Another skill scores about as well.")
	case rival == rivalAhead:
		why = append(why, "Another skill scores higher.")
	}
	if b.AntiTrigger < 0 {
		why = append(why, "Your request contains a phrase it says it is not for.")
	}
	if len(c.Identical) > 0 {
		why = append(why, fmt.Sprintf("Identical copies count once: %s.", strings.Join(c.Identical, ", ")))
	}
	return why
}

func quoteList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = `"` + s + `"`
	}
	return strings.Join(q, ", ")
}
