package pacedjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/skillfs/skillfs/pkg/pace/pacetest"
	"github.com/skillfs/skillfs/pkg/registry"
	"github.com/skillfs/skillfs/pkg/skill"
	"github.com/skillfs/skillfs/pkg/source"
)

// ptrText marshals through a pointer receiver, which encoding/json calls
// only on an addressable value.
type ptrText struct{ S string }

func (p *ptrText) MarshalJSON() ([]byte, error) { return json.Marshal("ptr:" + p.S) }

type shapes struct {
	Plain     string   `json:"plain"`
	Omitted   []string `json:"omitted,omitempty"`
	Kept      []string `json:"kept,omitempty"`
	Nil       []int    `json:"nil"`
	Bytes     []byte   `json:"bytes"`
	Untagged  int
	Skip      string `json:"-"`
	Dash      string `json:"-,"`
	hidden    string
	Escaped   string            `json:"a<b>"`
	Any       any               `json:"any"`
	Map       map[string]any    `json:"map"`
	Counts    map[int]string    `json:"counts"`
	Ptr       *ptrText          `json:"ptr"`
	Field     ptrText           `json:"field"`
	Fields    []ptrText         `json:"fields"`
	Stringy   int               `json:"stringy,string"`
	Nested    map[string]shapes `json:"nested,omitempty"`
	EmptyPtr  *int              `json:"emptyPtr,omitempty"`
	EmptyBool bool              `json:"emptyBool,omitempty"`
	Time      time.Time         `json:"time"`
}

type embeds struct {
	shapes
	Own string `json:"own"`
}

// TestMarshalIsJSON: Marshal gives json.Marshal's bytes for the results
// the module returns and for the shapes of encoding/json's rules.
func TestMarshalIsJSON(t *testing.T) {
	at := time.Date(2026, 11, 24, 10, 0, 0, 5, time.UTC)
	metas := make([]registry.Meta, 40)
	for i := range metas {
		metas[i] = registry.Meta{ID: fmt.Sprintf("s-%d", i), Name: fmt.Sprintf("s-%d", i), Description: "Does <things> & more.", CreatedAt: at,
			Enabled: i%2 == 0, Triggers: []string{"a"}, Diagnostics: []skill.Diagnostic{{Code: "x", Message: "y"}},
			Origin: &source.Origin{Kind: "url", URL: "https://example.test/a.zip"}}
	}
	sh := shapes{Plain: "p", Kept: []string{"k"}, Bytes: []byte{1, 2, 255}, Untagged: 3, Skip: "no", Dash: "d", hidden: "h",
		Escaped: "<&>", Any: metas[:2], Map: map[string]any{"b": 1, "a": []string{"x"}, "c": nil, "<k>": map[string]any{"z": 1, "y": metas[:1]}}, Counts: map[int]string{2: "two", 1: "one"},
		Ptr: &ptrText{"p"}, Field: ptrText{"f"}, Fields: []ptrText{{"e"}}, Stringy: 7, Time: at}
	sh.Nested = map[string]shapes{"n": {Plain: "inner"}}
	for _, v := range []any{
		nil, 1, "s", metas, &metas, []registry.Meta{}, []registry.Meta(nil),
		&registry.ImportResult{Skills: metas, Replaced: []string{"r"}, Revision: 9},
		registry.ImportResult{},
		&registry.ImportPreview{Skills: []registry.PreviewSkill{{Name: "a", Error: &registry.SkillError{Code: "x"}}, {Name: "b"}},
			InstalledSkills: map[string]registry.InstalledSkill{"b": {Enabled: true}, "a": {Noted: true}}},
		map[string]any{"skills": metas, "dropped": []string(nil), "origin": source.Origin{Kind: "index"}},
		sh, &sh, []shapes{sh, {}}, embeds{shapes: sh, Own: "o"}, []any{1, "x", nil, metas[0]},
	} {
		want, werr := json.Marshal(v)
		got, err := Marshal(v)
		if (err != nil) != (werr != nil) || string(got) != string(want) {
			t.Errorf("Marshal(%T):\n got %s (%v)\nwant %s (%v)", v, got, err, want, werr)
		}
	}
	if _, err := Marshal([]any{func() {}}); err == nil {
		t.Error("Marshal of a func: no error")
	}
}

// TestMarshalSteps: a list of a thousand records, and a map of a
// thousand, are encoded with a step (pace.Step) every 16 of them.
// Counted, not timed: web/bench/calls.mjs times an import's result and a
// preview of 5,100 skills.
func TestMarshalSteps(t *testing.T) {
	const n = 1000
	installed := map[string]registry.InstalledSkill{}
	for i := range n {
		installed[fmt.Sprint(i)] = registry.InstalledSkill{}
	}
	for _, v := range []any{&registry.ImportResult{Skills: make([]registry.Meta, n)}, &registry.ImportPreview{InstalledSkills: installed}} {
		steps := 0
		stop := pacetest.Observe(func() { steps++ })
		_, err := Marshal(v)
		stop()
		if err != nil {
			t.Fatal(err)
		}
		if want := n / 16; steps < want {
			t.Errorf("%T of %d encoded with %d steps, want %d or more", v, n, steps, want)
		}
	}
}

// text encodes itself by MarshalText alone, which encoding/json prefers
// to walking its fields, elements or entries.
type (
	text     struct{ A int }
	textList []string
	textMap  map[string]int
)

func (text) MarshalText() ([]byte, error)     { return []byte("text"), nil }
func (textList) MarshalText() ([]byte, error) { return []byte("list"), nil }
func (textMap) MarshalText() ([]byte, error)  { return []byte("map"), nil }

// failing's MarshalJSON fails, by a value or a pointer receiver.
type (
	failing    struct{}
	ptrFailing struct{}
)

func (failing) MarshalJSON() ([]byte, error)     { return nil, errors.New("no") }
func (*ptrFailing) MarshalJSON() ([]byte, error) { return nil, errors.New("no") }

// generated is a struct Marshal walks, holding generated values.
type generated struct {
	A   any            `json:"a,omitempty"`
	Ptr *any           `json:"ptr"`
	Map map[string]any `json:"map,omitempty"`
	F   ptrFailing     `json:"f,omitempty"`
	T   text           `json:"t"`
}

// badName's field's JSON name is not one encoding/json takes: it writes
// the field's Go name.
type badName struct {
	V any `json:"é€"`
}

// gen makes a value of the shapes Marshal walks and those it must leave
// to json.Marshal, from data: a fuzzer's bytes choose the shape, the
// lengths, the strings (invalid UTF-8, HTML) and the floats (NaN, Inf).
func gen(data *[]byte, depth int) any {
	next := func() byte {
		if len(*data) == 0 {
			return 0
		}
		c := (*data)[0]
		*data = (*data)[1:]
		return c
	}
	str := func() string {
		n := min(int(next()%8), len(*data))
		s := string((*data)[:n])
		*data = (*data)[n:]
		return s
	}
	kind := next()
	if depth > 6 {
		kind %= 4
	}
	switch kind % 16 {
	case 0:
		return nil
	case 1:
		return next()%2 == 0
	case 2:
		bits := uint64(0)
		for range 8 {
			bits = bits<<8 | uint64(next())
		}
		return math.Float64frombits(bits)
	case 3:
		return str()
	case 4:
		l := make([]any, next()%5)
		for i := range l {
			l[i] = gen(data, depth+1)
		}
		return l
	case 5:
		m := map[string]any{}
		for range next() % 5 {
			m[str()] = gen(data, depth+1)
		}
		return m
	case 6:
		return text{int(next())}
	case 7:
		return textList{str()}
	case 8:
		return textMap{str(): 1}
	case 9:
		return &ptrText{str()}
	case 10:
		return []ptrText{{str()}}
	case 11:
		return []failing{{}}
	case 12:
		return []ptrFailing{{}}
	case 13:
		g := generated{A: gen(data, depth+1), Map: map[string]any{str(): gen(data, depth+1)}}
		if next()%2 == 0 {
			p := gen(data, depth+1)
			g.Ptr = &p
		}
		return &g
	case 14:
		m := map[string]any{str(): nil}
		m["self"] = m // a cycle: json.Marshal's error
		return m
	default:
		return registry.Meta{ID: str(), Description: str(), Triggers: []string{str()}}
	}
}

// FuzzMarshalIsJSON: Marshal gives json.Marshal's bytes, or its error, for
// values generated from the fuzzer's bytes, as the result and as what the
// result points to.
func FuzzMarshalIsJSON(f *testing.F) {
	for _, seed := range []string{
		"\x06\x01", "\x07\x01a", "\x08\x01a", "\x05\x01\x01a\x07\x01b", "\x0d\x03\x01<\x03\x02\xff&\x01a\x00\x00",
		"\x0b", "\x0c", "\x0e\x01x", "\x02\x7f\xf8\x00\x00\x00\x00\x00\x01", "\x04\x02\x0e\x00\x06\x00",
		"\x0d\x0c\x00\x00\x00\x01", "\x03\x04\xe2\x80\xa8<", "\x0f\x01a\x02\xffb\x01c",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v := gen(&data, 0)
		for _, v := range []any{v, &v, generated{A: v}, &generated{A: v}, badName{v}} {
			want, werr := json.Marshal(v)
			got, err := Marshal(v)
			if string(got) != string(want) || fmt.Sprint(err) != fmt.Sprint(werr) {
				t.Fatalf("Marshal(%#v):\n got %s (%v)\nwant %s (%v)", v, got, err, want, werr)
			}
		}
	})
}

// TestListIsSlice: a List decodes what a plain slice decodes, to the same
// elements, and refuses what it refuses; a list of a thousand rows with a
// step (pace.Step) every 16. Counted, not timed: web/bench/calls.mjs times
// previewNotes of 5,100 rows.
func TestListIsSlice(t *testing.T) {
	type (
		plain struct {
			Skills []registry.PreviewSkill `json:"skills"`
		}
		paced struct {
			Skills List[registry.PreviewSkill] `json:"skills"`
		}
	)
	many, err := json.Marshal(make([]registry.PreviewSkill, 1000))
	if err != nil {
		t.Fatal(err)
	}
	for _, skills := range []string{
		`[{"name":"a","status":"new","dependencies":["b"]},{"name":"b","installed":"b-1","Status":"conflict"}]`,
		`[]`, `null`, string(many), `[ {"name":"a"} , {} ]`,
		`{}`, `"a"`, `[1]`, `[{"name":1}]`, `[{"dependencies":{}}]`,
	} {
		raw := []byte(`{"skills":` + skills + `}`)
		var want plain
		wantErr := json.Unmarshal(raw, &want)
		var got paced
		steps := 0
		stop := pacetest.Observe(func() { steps++ })
		err := json.Unmarshal(raw, &got)
		stop()
		switch {
		case (err != nil) != (wantErr != nil):
			t.Errorf("%.40s: %v, want %v", skills, err, wantErr)
		case err == nil && !reflect.DeepEqual([]registry.PreviewSkill(got.Skills), want.Skills):
			t.Errorf("%.40s: %#v, want %#v", skills, got.Skills, want.Skills)
		case len(want.Skills) >= 1000 && steps < len(want.Skills)/16:
			t.Errorf("%d rows decoded with %d steps, want %d or more", len(want.Skills), steps, len(want.Skills)/16)
		}
	}
}
