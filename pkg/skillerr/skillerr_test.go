package skillerr

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCodeOfFollowsTheChain(t *testing.T) {
	base := &Error{Code: PathRejected, Reason: "dot-dot", Subject: "a/../b", Msg: "path leaves the skill"}
	wrapped := fmt.Errorf("import: %w", base)
	if got := CodeOf(wrapped); got != PathRejected {
		t.Fatalf("CodeOf = %q, want PathRejected", got)
	}
	if got := ReasonOf(wrapped); got != "dot-dot" {
		t.Fatalf("ReasonOf = %q, want dot-dot", got)
	}
	if !errors.Is(wrapped, &Error{Code: PathRejected}) {
		t.Fatal("errors.Is should match on the code")
	}
	if errors.Is(wrapped, &Error{Code: Conflict}) {
		t.Fatal("errors.Is matched a different code")
	}
	if got := CodeOf(errors.New("disk on fire")); got != Internal {
		t.Fatalf("CodeOf(plain) = %q, want Internal", got)
	}
	if got := CodeOf(nil); got != "" {
		t.Fatalf("CodeOf(nil) = %q, want empty", got)
	}
}

// TestWrapInternalKeepsTheCause: wrapped as Internal, a cause with a code
// gives the wrapper its code and reason, which is what callers read (the
// first Error of the chain); other codes, and causes without one, are as
// they were.
func TestWrapInternalKeepsTheCause(t *testing.T) {
	cause := &Error{Code: TooLarge, Reason: "too-many-files", Subject: "x/refs", Msg: "too many"}
	err := Wrap(Internal, "x", fmt.Errorf("read: %w", cause), "the skill's tree is unreadable")
	if err.Code != TooLarge || err.Reason != "too-many-files" || err.Subject != "x" || !errors.Is(err, cause) {
		t.Errorf("Wrap(Internal) of TooLarge = %+v", err)
	}
	if got := Wrap(Conflict, "x", cause, "refused"); got.Code != Conflict || got.Reason != "" {
		t.Errorf("Wrap(Conflict) of TooLarge = %+v", got)
	}
	if got := Wrap(Internal, "x", errors.New("disk on fire"), "failed"); got.Code != Internal || got.Reason != "" {
		t.Errorf("Wrap(Internal) of a plain error = %+v", got)
	}
}

func TestMessageNamesSubjectAndCause(t *testing.T) {
	err := Wrap(QuotaExceeded, "pdf", errors.New("QuotaExceededError"), "not enough storage for %d bytes", 42)
	want := "pdf: not enough storage for 42 bytes: QuotaExceededError"
	if err.Error() != want {
		t.Fatalf("Error() = %q, want %q", err.Error(), want)
	}
	if got, want := err.Unsubjected(), "not enough storage for 42 bytes: QuotaExceededError"; got != want {
		t.Fatalf("Unsubjected() = %q, want %q", got, want)
	}
}

// TestClip: a long value is cut at a character boundary, never inside
// one, and says so; a short one is kept as it is.
func TestClip(t *testing.T) {
	if got := Clip("pdf-tools"); got != "pdf-tools" {
		t.Errorf("Clip(short) = %q", got)
	}
	exact := strings.Repeat("a", MaxQuoted)
	if got := Clip(exact); got != exact {
		t.Errorf("Clip of exactly MaxQuoted bytes = %q", got)
	}
	// "é" is two bytes: the cut falls inside the last one that fits.
	long := "a" + strings.Repeat("é", MaxQuoted)
	got := Clip(long)
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || len(got) > MaxQuoted+len("…") || !strings.HasPrefix(long, strings.TrimSuffix(got, "…")) {
		t.Errorf("Clip(long) = %q (%d bytes)", got, len(got))
	}
}
