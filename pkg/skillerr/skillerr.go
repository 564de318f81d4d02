// Package skillerr defines the error type every skillfs package returns.
//
// An error carries a stable Code that callers (the wasm module, the bridge,
// the CLI) switch on, and a message written for a person. Nobody parses the
// message.
package skillerr

import (
	"errors"
	"fmt"
	"io/fs"
	"unicode/utf8"
)

// Code is a stable, machine-readable error class. Its string form crosses
// into JavaScript unchanged, so existing values must never be renamed.
type Code string

// The codes callers can rely on.
const (
	SkillNotFound    Code = "SkillNotFound"
	InvalidManifest  Code = "InvalidManifest"
	InvalidArchive   Code = "InvalidArchive"
	PathRejected     Code = "PathRejected"
	PermissionDenied Code = "PermissionDenied"
	Conflict         Code = "Conflict"
	QuotaExceeded    Code = "QuotaExceeded"
	Disabled         Code = "Disabled"
	NotVisible       Code = "NotVisible"
	NotText          Code = "NotText"
	TooLarge         Code = "TooLarge"
	ToolNotAllowed   Code = "ToolNotAllowed"
	Timeout          Code = "Timeout"
	InvalidArgument  Code = "InvalidArgument"
	// Integrity: downloaded bytes do not match the digest they were
	// published with; nothing of them was used.
	Integrity Code = "Integrity"
	// InvalidIndex: a discovery index or an MCP skills listing that
	// cannot be used as a whole (malformed, an unknown schema).
	InvalidIndex Code = "InvalidIndex"
	// FetchFailed: the host could not fetch what a source points to (a
	// network error, an HTTP status, a server without skills).
	FetchFailed Code = "FetchFailed"
	// WasmError: a skill's WebAssembly module was refused (it imports
	// more than WASI preview 1, declares too much memory) or its run
	// failed.
	WasmError Code = "WasmError"
	// Internal marks a failure that is not the caller's fault (a storage
	// error, a bug). Errors without a Code report it. Wrapped in it, a
	// cause with a code keeps it (see Wrap).
	Internal Code = "Internal"
)

// Error is a failure with a stable code.
type Error struct {
	Code Code
	// Reason refines Code with a finer stable token, such as "zip-slip" or
	// "symlink" for InvalidArchive; empty when Code says it all.
	Reason string
	// Subject names what the error is about: a skill id, a path, an
	// archive entry.
	Subject string
	// Msg is the sentence shown to a person.
	Msg string
	// Err is the underlying cause, if any.
	Err error
}

func (e *Error) Error() string {
	if e.Subject != "" {
		return fmt.Sprintf("%s: %s", e.Subject, e.Unsubjected())
	}
	return e.Unsubjected()
}

// Unsubjected is the message without the subject before it (Msg, then
// the cause): for a sentence that names the subject itself, such as a
// skill's own view saying why an edit of it was refused.
func (e *Error) Unsubjected() string {
	if e.Err != nil && !isFSSentinel(e.Err) {
		return fmt.Sprintf("%s: %v", e.Msg, e.Err)
	}
	return e.Msg
}

// isFSSentinel reports whether err is one of io/fs's bare errors. Such a
// cause is kept for errors.Is, but its text ("file does not exist") is
// what Msg, Code and Reason say already (pkg/vfs makes "no such file or
// directory", SkillNotFound, not-exist of fs.ErrNotExist), so a message
// does not say it twice.
func isFSSentinel(err error) bool {
	switch err {
	case fs.ErrNotExist, fs.ErrExist, fs.ErrPermission, fs.ErrInvalid, fs.ErrClosed:
		return true
	}
	return false
}

func (e *Error) Unwrap() error { return e.Err }

// Is lets errors.Is(err, &Error{Code: c}) match on the code alone. A
// PathRejected error also matches fs.ErrInvalid, which is what io/fs
// callers expect for a name that cannot be used.
func (e *Error) Is(target error) bool {
	if target == fs.ErrInvalid && e.Code == PathRejected {
		return true
	}
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Reason == "" && t.Subject == "" && t.Msg == ""
}

// New returns an Error with code, subject and a formatted message.
func New(code Code, subject, format string, args ...any) *Error {
	return &Error{Code: code, Subject: subject, Msg: fmt.Sprintf(format, args...)}
}

// Wrap returns an Error with code and subject around cause. With code
// Internal, an Error in cause's chain gives its code and reason instead:
// Internal says only that the wrapper cannot tell why, and what the cause
// tells (a directory's record listing too many files is TooLarge,
// too-many-files) must reach the caller whichever path read it — the
// wasm module and the bridge report the first Error of a chain.
func Wrap(code Code, subject string, cause error, format string, args ...any) *Error {
	e := &Error{Code: code, Subject: subject, Msg: fmt.Sprintf(format, args...), Err: cause}
	var ce *Error
	if code == Internal && errors.As(cause, &ce) {
		e.Code, e.Reason = ce.Code, ce.Reason
	}
	return e
}

// CodeOf returns the code of the first *Error in err's chain, Internal for
// any other non-nil error, and "" for nil.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// ReasonOf returns the Reason of the first *Error in err's chain.
func ReasonOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}

// MaxQuoted bounds a value quoted in a message (see Clip): more than a
// skill name's 64 characters, or a short sentence.
const MaxQuoted = 160

// Clip returns s, a value a message quotes, cut to at most MaxQuoted
// bytes at a character boundary and ended with "…" when it was longer.
// What an archive or a publisher writes is untrusted: a 60 KB name quoted
// as it is makes a message nobody reads, copied into every diagnostic and
// error that names it.
func Clip(s string) string {
	if len(s) <= MaxQuoted {
		return s
	}
	cut := MaxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
