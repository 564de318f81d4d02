package resolver

import (
	"bytes"
	"mime"
	"path"
	"strings"
	"unicode/utf8"
)

// MediaType says what a skill file holds, so a host hands an image or a
// PDF to its model as bytes rather than decoding it as text. Text is
// what is valid UTF-8 without NUL bytes (SKILL.md, scripts, references,
// whatever their extension); anything else takes the type its extension
// has in Go's table, or application/octet-stream.
func MediaType(name string, data []byte) string {
	ext := strings.ToLower(path.Ext(name))
	if utf8.Valid(data) && bytes.IndexByte(data, 0) < 0 {
		switch ext {
		case ".md", ".markdown":
			return "text/markdown; charset=utf-8"
		case ".json":
			return "application/json"
		}
		if t := mime.TypeByExtension(ext); strings.HasPrefix(t, "text/") || strings.HasSuffix(t, "+xml") {
			return t
		}
		return "text/plain; charset=utf-8"
	}
	if t := mime.TypeByExtension(ext); t != "" && !strings.HasPrefix(t, "text/") {
		return t
	}
	return "application/octet-stream"
}
