package resolver

import (
	"crypto/sha256"
	"encoding/hex"
	"unicode/utf8"

	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/toolrule"
)

// Limits on what a session's caller (an agent: treat it as hostile) may
// make the resolver hold, store or compute. Each is far above what a real
// agent needs, and each is refused with TooLarge rather than trimmed, so a
// caller learns it went too far. Together they bound what agents can
// write: pins at most MaxPinContexts × (MaxContextID + MaxPinsPerContext ×
// ~200 bytes) ≈ 2 MB, the audit log AuditLimit × ~2 KB ≈ 2 MB (a module run's record up to ~3 KB), and the
// statistics one small record per installed skill; an agent cannot fill
// the disk under an admin's import.
const (
	// MaxContextID is the longest context id, in bytes. A host that
	// scopes ids by sender prefixes them, so leave it room.
	MaxContextID = 1024
	// MaxSelection bounds a session's selection, in ids (duplicates
	// count once); MaxToolNames each list of tools or MCP servers.
	MaxSelection = 1000
	MaxToolNames = 1000
	// MaxPinsPerContext bounds one context's pins; MaxPinContexts the
	// contexts that have pins.
	MaxPinsPerContext = 64
	MaxPinContexts    = 1024
	// MaxExpansion bounds by how many bytes argument substitution may make
	// a skill's body longer: $0 a thousand times over a long argument
	// must not build hundreds of megabytes.
	MaxExpansion = 1 << 20
	// auditField bounds each string field of a stored audit entry, in
	// bytes; a longer one is cut and ends with a hash of the whole.
	auditField = 256
)

// ReasonLimit is the reason of the TooLarge errors of these limits.
const ReasonLimit = "limit"

func errLimit(subject, format string, args ...any) error {
	e := skillerr.New(skillerr.TooLarge, subject, format, args...)
	e.Reason = ReasonLimit
	return e
}

// checkSessionOptions refuses options beyond the limits, and dedupes the
// lists with a set so that nothing later is quadratic in them.
func checkSessionOptions(opts *SessionOptions) error {
	if len(opts.ContextID) > MaxContextID {
		return errLimit(clip(opts.ContextID, auditField), "the context id is %d bytes; at most %d are accepted",
			len(opts.ContextID), MaxContextID)
	}
	if err := checkSelection(opts.Skills); err != nil {
		return err
	}
	if err := toolrule.CheckDir(opts.WorkingDirectory); err != nil {
		return err
	}
	for what, list := range map[string]*[]string{
		"availableTools": &opts.AvailableTools, "baseTools": &opts.BaseTools, "mcpServers": &opts.MCPServers,
	} {
		if len(*list) > MaxToolNames && len(dedupe(append([]string(nil), *list...))) > MaxToolNames {
			return errLimit(what, "%d names; at most %d are accepted", len(*list), MaxToolNames)
		}
		if *list != nil {
			*list = dedupe(append([]string(nil), *list...))
		}
	}
	return nil
}

// checkSelection refuses a selection of more than MaxSelection distinct
// ids.
func checkSelection(ids []string) error {
	if len(ids) > MaxSelection && len(cleanSelection(ids)) > MaxSelection {
		return errLimit("skills", "the selection has %d skills; at most %d are accepted", len(ids), MaxSelection)
	}
	return nil
}

// clip returns s when it has at most n bytes, and otherwise its first
// bytes (whole characters) followed by "…" and a hash of the whole, n
// bytes in all, so that two long values stay apart.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	tail := "…sha256:" + hex.EncodeToString(sum[:8])
	cut := max(n-len(tail), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + tail
}
