package pacedjson

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/skillfs/skillfs/pkg/pace"
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
		stop := pace.Observe(func() { steps++ })
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
