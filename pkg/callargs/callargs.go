// Package callargs decodes the arguments of a call to the skillfs module:
// one JSON object whose keys are exactly the JSON names of the fields of
// the structs it is decoded into, within limits on its size.
//
// encoding/json alone is too lenient for arguments that cross from a web
// page: it matches a key to a field regardless of case, including Unicode
// case folding ("ſession", with U+017F, fills Session), lets the last of
// two equal keys win, and ignores unknown keys. A host that checked one
// spelling would then see another acted on. Decode reads the object's keys
// first and refuses any that is not exactly a known name, or that repeats.
package callargs

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"

	"github.com/skillfs/skillfs/pkg/pace"
	"github.com/skillfs/skillfs/pkg/skillerr"
)

// Reasons of the errors Decode returns.
const (
	ReasonNotObject   = "not-an-object"
	ReasonUnknownKey  = "unknown-key"
	ReasonRepeatedKey = "repeated-key"
	ReasonShape       = "shape"
	ReasonTooLarge    = "too-large"
)

// Limits bound what one call's arguments may hold; a zero field is no
// limit.
type Limits struct {
	// Bytes bounds the JSON text.
	Bytes int
	// List bounds the items of any array, and String the bytes of any
	// string (keys included).
	List, String int
	// Depth bounds how deeply arrays and objects nest.
	Depth int
}

// Agent are the limits of a call from an agent (a content script, which
// runs in a web page's renderer): enough for a selection and a tool list
// of a thousand names and a long invocation, and small enough that no
// call's decoding or work can keep the module busy for long.
var Agent = Limits{Bytes: 256 << 10, List: 1000, String: 16 << 10, Depth: 8}

// Decode decodes the JSON object raw into each of targets (pointers to
// structs) after checking that raw is within lim (nil: no limits) and that
// every key of the object is exactly the JSON name of a field of one of
// the targets, given once. Empty raw is no arguments, and an empty object
// decodes nothing. Errors are
// InvalidArgument, or TooLarge beyond lim, naming the key at fault.
func Decode(raw []byte, lim *Limits, targets ...any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	if lim == nil {
		lim = &Limits{}
	}
	if lim.Bytes > 0 && len(raw) > lim.Bytes {
		return tooLarge("", "the arguments are %d bytes; at most %d are accepted", len(raw), lim.Bytes)
	}
	// An empty object decodes nothing: a host's first call, a list, then
	// runs none of encoding/json's decoder, which V8 would compile for it
	// during the module's start. Only JSON's own blanks may surround it
	// (bytes.TrimSpace's others, such as U+00A0, are not JSON), so that
	// this accepts exactly what decoding it would.
	if string(bytes.Trim(raw, " \t\r\n")) == "{}" {
		return nil
	}
	known := map[string]bool{}
	for _, t := range targets {
		fieldNames(reflect.TypeOf(t), known)
	}
	if err := scan(raw, lim, known); err != nil {
		return err
	}
	for _, t := range targets {
		if err := json.Unmarshal(raw, t); err != nil {
			return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonShape,
				Msg: "the arguments do not have the expected shape", Err: err}
		}
	}
	return nil
}

// scan walks the JSON text once, token by token: the top level must be an
// object with known, distinct keys, and nothing in it may exceed lim. It
// steps (pace.StepAt) between tokens: the arguments of a call about
// thousands of skills (a preview's rows, in previewNotes) are tens of
// thousands of them, too many for one task of the host's thread.
func scan(raw []byte, lim *Limits, known map[string]bool) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type level struct {
		object bool
		items  int
		key    bool // in an object: the next token is a key
	}
	var stack []level
	seen := map[string]bool{}
	done := false // the top-level object has closed
	for n := 0; ; n++ {
		pace.StepAt(n)
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonShape,
				Msg: "the arguments are not valid JSON", Err: err}
		}
		if done {
			return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonShape,
				Msg: "the arguments must be one JSON object, and nothing after it"}
		}
		if len(stack) == 0 && tok != json.Delim('{') {
			return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonNotObject,
				Msg: "the arguments must be one JSON object"}
		}
		if n := len(stack); n > 0 {
			top := &stack[n-1]
			if key, ok := tok.(string); ok && top.object && top.key {
				top.key = false
				if lim.String > 0 && len(key) > lim.String {
					return tooLarge(key[:lim.String], "a key is %d bytes; at most %d are accepted", len(key), lim.String)
				}
				if n == 1 {
					switch {
					case !known[key]:
						return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonUnknownKey, Subject: key,
							Msg: "no argument of this call has this name (names are matched exactly, case included)"}
					case seen[key]:
						return &skillerr.Error{Code: skillerr.InvalidArgument, Reason: ReasonRepeatedKey, Subject: key,
							Msg: "this argument is given twice"}
					}
					seen[key] = true
				}
				continue
			}
			if d, ok := tok.(json.Delim); !ok || d == '{' || d == '[' {
				top.items++
				if !top.object && lim.List > 0 && top.items > lim.List {
					return tooLarge("", "a list has more than %d items", lim.List)
				}
				top.key = top.object
			}
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{', '[':
				if lim.Depth > 0 && len(stack) >= lim.Depth {
					return tooLarge("", "the arguments nest more than %d levels deep", lim.Depth)
				}
				stack = append(stack, level{object: tok == '{', key: tok == '{'})
			default:
				stack = stack[:len(stack)-1]
				if n := len(stack); n > 0 {
					stack[n-1].key = stack[n-1].object
				}
				done = len(stack) == 0
			}
		case string:
			if lim.String > 0 && len(tok) > lim.String {
				return tooLarge("", "a string is %d bytes; at most %d are accepted", len(tok), lim.String)
			}
		}
	}
	return nil
}

func tooLarge(subject, format string, args ...any) error {
	e := skillerr.New(skillerr.TooLarge, subject, format, args...)
	e.Reason = ReasonTooLarge
	return e
}

// fieldNames adds the JSON names of the fields of the struct t points to
// (and of its embedded structs) to names.
func fieldNames(t reflect.Type, names map[string]bool) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		switch {
		case name == "-" && tag == "-":
			continue
		case f.Anonymous && name == "":
			fieldNames(f.Type, names)
			continue
		case !f.IsExported():
			continue
		case name == "":
			name = f.Name
		}
		names[name] = true
	}
}
