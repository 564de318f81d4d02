package resolver

import (
	"bytes"
	"path"
	"strings"
	"unicode/utf8"
)

// MediaType says what a skill file holds, so a host hands an image or a
// PDF to its model as bytes rather than decoding it as text. Text is
// what is valid UTF-8 without NUL bytes (SKILL.md, scripts, references,
// whatever their extension); anything else takes the type its extension
// has in extTypes, or application/octet-stream.
func MediaType(name string, data []byte) string {
	ext := strings.ToLower(path.Ext(name))
	t := extTypes[ext]
	if utf8.Valid(data) && bytes.IndexByte(data, 0) < 0 {
		switch ext {
		case ".md", ".markdown":
			return "text/markdown; charset=utf-8"
		case ".json":
			return "application/json"
		}
		if strings.HasPrefix(t, "text/") || strings.HasSuffix(t, "+xml") {
			return t
		}
		return "text/plain; charset=utf-8"
	}
	if t != "" && !strings.HasPrefix(t, "text/") {
		return t
	}
	return "application/octet-stream"
}

// extTypes is Go's built-in extension table (mime.builtinTypesLower, all
// the browser has: there is no /etc/mime.types there), so a file gets the
// same type natively and in the module. The mime package itself, with
// its system-file loader and parsers, cost the module ~100 KB.
var extTypes = map[string]string{
	".ai": "application/postscript", ".apk": "application/vnd.android.package-archive",
	".apng": "image/apng", ".avif": "image/avif", ".bin": "application/octet-stream",
	".bmp": "image/bmp", ".com": "application/octet-stream", ".css": "text/css; charset=utf-8",
	".csv": "text/csv; charset=utf-8", ".doc": "application/msword",
	".docx":  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".ehtml": "text/html; charset=utf-8", ".eml": "message/rfc822", ".eps": "application/postscript",
	".exe": "application/octet-stream", ".flac": "audio/flac", ".gif": "image/gif",
	".gz": "application/gzip", ".htm": "text/html; charset=utf-8", ".html": "text/html; charset=utf-8",
	".ico": "image/vnd.microsoft.icon", ".ics": "text/calendar; charset=utf-8", ".jfif": "image/jpeg",
	".jpeg": "image/jpeg", ".jpg": "image/jpeg", ".js": "text/javascript; charset=utf-8",
	".json": "application/json", ".m4a": "audio/mp4", ".mjs": "text/javascript; charset=utf-8",
	".mp3": "audio/mpeg", ".mp4": "video/mp4", ".oga": "audio/ogg", ".ogg": "audio/ogg",
	".ogv": "video/ogg", ".opus": "audio/ogg", ".pdf": "application/pdf", ".pjp": "image/jpeg",
	".pjpeg": "image/jpeg", ".png": "image/png", ".ppt": "application/vnd.ms-powerpoint",
	".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
	".ps":   "application/postscript", ".rdf": "application/rdf+xml", ".rtf": "application/rtf",
	".shtml": "text/html; charset=utf-8", ".svg": "image/svg+xml", ".text": "text/plain; charset=utf-8",
	".tif": "image/tiff", ".tiff": "image/tiff", ".txt": "text/plain; charset=utf-8",
	".vtt": "text/vtt; charset=utf-8", ".wasm": "application/wasm", ".wav": "audio/wav",
	".webm": "audio/webm", ".webp": "image/webp", ".xbl": "text/xml; charset=utf-8",
	".xbm": "image/x-xbitmap", ".xht": "application/xhtml+xml", ".xhtml": "application/xhtml+xml",
	".xls":  "application/vnd.ms-excel",
	".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	".xml":  "text/xml; charset=utf-8", ".xsl": "text/xml; charset=utf-8", ".zip": "application/zip",
}
