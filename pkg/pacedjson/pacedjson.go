// Package pacedjson encodes a call's result as encoding/json does, byte
// for byte, stepping (pace.StepAt) between the elements of its lists and
// maps: a result of thousands of skills' records (an import's, a batch's)
// is megabytes of JSON, too long for one task of the host's thread. A
// List decodes a call's argument of thousands of rows so too.
package pacedjson

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/skillfs/skillfs/pkg/pace"
)

var (
	marshaler     = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// maxDepth is how many pointers, interfaces, lists and maps deep Marshal
// walks; below, json.Marshal writes the rest whole. It bounds the walk of
// a value that contains itself, which json.Marshal refuses as a cycle.
const maxDepth = 32

// Marshal returns json.Marshal(v). Pointers and interfaces are followed,
// the result's own struct is walked field by field, and lists and maps
// with string keys, at any depth, are written an element at a time, each
// by json.Marshal, with a step every 16; anything else, and a struct with
// a field whose encoding this does not repeat (embedded, ",string",
// ",omitzero", a name encoding/json does not take), goes to json.Marshal
// whole, as does a value with its own encoding (a json.Marshaler or an
// encoding.TextMarshaler) and what lies below maxDepth.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := encode(&b, reflect.ValueOf(v), 0, true); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// encode writes v, depth pointers, interfaces, lists and maps below the
// result; a struct only when top (the result, or what it points to),
// since walking one costs more than json.Marshal of it.
func encode(b *bytes.Buffer, v reflect.Value, depth int, top bool) error {
	if !v.IsValid() || depth > maxDepth || ownEncoding(v.Type()) || ownEncoding(reflect.PointerTo(v.Type())) {
		return whole(b, v)
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		return encode(b, v.Elem(), depth+1, top)
	case reflect.Slice:
		if v.IsNil() || v.Type().Elem().Kind() == reflect.Uint8 {
			return whole(b, v) // null, or base64
		}
		b.WriteByte('[')
		for i := range v.Len() {
			pace.StepAt(i)
			if i > 0 {
				b.WriteByte(',')
			}
			if err := whole(b, v.Index(i)); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	case reflect.Struct:
		if top {
			return encodeStruct(b, v, depth)
		}
	case reflect.Map:
		if v.IsNil() || v.Type().Key() != reflect.TypeFor[string]() {
			break
		}
		keys := make([]string, 0, v.Len())
		for it := v.MapRange(); it.Next(); {
			keys = append(keys, it.Key().String())
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for i, k := range keys {
			pace.StepAt(i)
			if i > 0 {
				b.WriteByte(',')
			}
			if err := field(b, k, v.MapIndex(reflect.ValueOf(k)), depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
		return nil
	}
	return whole(b, v)
}

// encodeStruct writes the exported fields of v in their order, under
// their JSON names, as encoding/json does.
func encodeStruct(b *bytes.Buffer, v reflect.Value, depth int) error {
	t := v.Type()
	type named struct {
		i         int
		name      string
		omitEmpty bool
	}
	var fields []named
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		switch {
		case f.Anonymous || strings.Contains(","+opts+",", ",string,") || strings.Contains(","+opts+",", ",omitzero,"):
			return whole(b, v)
		case !f.IsExported() || tag == "-":
			continue
		case name == "":
			name = f.Name
		case strings.ContainsFunc(name, badInName):
			return whole(b, v) // encoding/json uses the Go name instead
		}
		if seen[name] {
			return whole(b, v) // encoding/json's rule for names that clash
		}
		seen[name] = true
		fields = append(fields, named{i, name, strings.Contains(","+opts+",", ",omitempty,")})
	}
	b.WriteByte('{')
	first := true
	for _, f := range fields {
		fv := v.Field(f.i)
		if f.omitEmpty && empty(fv) {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		if err := field(b, f.name, fv, depth+1); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// field writes "name":value, value at depth.
func field(b *bytes.Buffer, name string, v reflect.Value, depth int) error {
	if err := whole(b, reflect.ValueOf(name)); err != nil {
		return err
	}
	b.WriteByte(':')
	return encode(b, v, depth, false)
}

// badInName reports a character encoding/json does not take in a field's
// JSON name (its isValidTag): letters, digits and this punctuation only.
func badInName(c rune) bool {
	return !unicode.IsLetter(c) && !unicode.IsDigit(c) && !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c)
}

// ownEncoding reports whether t encodes itself: encoding/json calls its
// MarshalJSON, or else its MarshalText, rather than walk its fields,
// elements or entries.
func ownEncoding(t reflect.Type) bool {
	return t.Implements(marshaler) || t.Implements(textMarshaler)
}

// empty is encoding/json's test for omitempty.
func empty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// whole writes json.Marshal of v, through its address where it has one,
// as encoding/json reaches a MarshalJSON with a pointer receiver, in v or
// in its fields. A method's error then names v's type, not the pointer's,
// as encoding/json's does.
func whole(b *bytes.Buffer, v reflect.Value) error {
	var x any
	switch {
	case v.CanAddr():
		x = v.Addr().Interface()
	case v.IsValid():
		x = v.Interface()
	}
	// Written into b, not returned and copied: an element of a result of
	// thousands is garbage the collector would mark and sweep.
	err := json.NewEncoder(b).Encode(x)
	if err == nil {
		b.Truncate(b.Len() - 1) // the newline Encode ends with
	}
	if me, ok := err.(*json.MarshalerError); ok && v.CanAddr() && me.Type == v.Addr().Type() {
		me.Type = v.Type()
	}
	return err
}

// List is a []T that json.Unmarshal decodes an element at a time,
// stepping (pace.StepAt) between them: a preview's thousands of rows,
// sent back for previewNotes, take longer than a task should.
type List[T any] []T

// UnmarshalJSON decodes b as json.Unmarshal decodes a []T.
func (l *List[T]) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return json.Unmarshal(b, (*[]T)(l)) // null, or what is not a list
	}
	list := List[T]{}
	for i := 0; dec.More(); i++ {
		pace.StepAt(i)
		var v T
		if err := dec.Decode(&v); err != nil {
			return err
		}
		list = append(list, v)
	}
	*l = list
	return nil
}
