package callargs

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/skillfs/skillfs/pkg/pace/pacetest"
	"github.com/skillfs/skillfs/pkg/skillerr"
	"github.com/skillfs/skillfs/pkg/skillerr/skillerrtest"
)

type sessionArgs struct {
	Session string `json:"session"`
}

type selectArgs struct {
	Skills []string `json:"skills"`
	Budget int      `json:"budget,omitempty"`
	hidden int
}

func TestDecodeExactKeys(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		code      skillerr.Code
		reason    string
	}{
		{"long s folds to s in encoding/json", `{"ſession":"b"}`, skillerr.InvalidArgument, ReasonUnknownKey},
		{"another case", `{"Session":"b"}`, skillerr.InvalidArgument, ReasonUnknownKey},
		{"kelvin sign", `{"s\u212Aills":[]}`, skillerr.InvalidArgument, ReasonUnknownKey},
		{"repeated: the last would win", `{"session":"a","session":"b"}`, skillerr.InvalidArgument, ReasonRepeatedKey},
		{"unknown", `{"session":"a","extra":1}`, skillerr.InvalidArgument, ReasonUnknownKey},
		{"unexported field", `{"hidden":1}`, skillerr.InvalidArgument, ReasonUnknownKey},
		{"not an object", `["session"]`, skillerr.InvalidArgument, ReasonNotObject},
		{"not JSON", `{"session":`, skillerr.InvalidArgument, ReasonShape},
		{"wrong type", `{"session":1}`, skillerr.InvalidArgument, ReasonShape},
		{"two objects", `{"session":"a"}{"session":"b"}`, skillerr.InvalidArgument, ReasonShape},
		// bytes.TrimSpace's blanks that JSON does not have: refused around
		// an empty object as around any other.
		{"an empty object after a vertical tab", "\v{}", skillerr.InvalidArgument, ReasonShape},
		{"an empty object before a no-break space", "{}\u00a0", skillerr.InvalidArgument, ReasonShape},
		{"an object after a no-break space", "\u00a0{\"session\":\"a\"}", skillerr.InvalidArgument, ReasonShape},
	} {
		var s sessionArgs
		var sel selectArgs
		err := Decode([]byte(tc.raw), nil, &s, &sel)
		skillerrtest.Want(t, tc.name, err, tc.code, tc.reason)
	}
	var s sessionArgs
	var sel selectArgs
	if err := Decode([]byte(`{"session":"a","skills":["x","y"],"budget":3}`), &Agent, &s, &sel); err != nil {
		t.Fatal(err)
	}
	if s.Session != "a" || len(sel.Skills) != 2 || sel.Budget != 3 {
		t.Errorf("decoded %+v %+v", s, sel)
	}
	for _, raw := range []string{"", " \n", "{}", " {}\r\n", "{ \t}"} {
		if err := Decode([]byte(raw), &Agent, &s); err != nil {
			t.Errorf("no arguments (%q): %v", raw, err)
		}
	}
}

func TestDecodeLimits(t *testing.T) {
	lim := &Limits{Bytes: 1 << 20, List: 3, String: 8, Depth: 3}
	list := func(n int) string {
		b, _ := json.Marshal(map[string]any{"skills": make([]string, n)})
		return string(b)
	}
	for _, tc := range []struct {
		name, raw string
		ok        bool
	}{
		{"list at the limit", list(3), true},
		{"list over", list(4), false},
		{"string at the limit", `{"session":"12345678"}`, true},
		{"string over", `{"session":"123456789"}`, false},
		{"nested list over", `{"skills":[[1,2,3,4]]}`, false},
		{"too deep", `{"skills":[[[1]]]}`, false},
		{"key over", `{"` + strings.Repeat("k", 9) + `":1}`, false},
		{"bytes over", `{"session":"` + strings.Repeat(" ", 2<<20) + `"}`, false},
		{"an empty object after blanks over", strings.Repeat(" ", 2<<20) + `{}`, false},
	} {
		var s sessionArgs
		var sel selectArgs
		err := Decode([]byte(tc.raw), lim, &s, &sel)
		if tc.ok {
			if err != nil && skillerr.CodeOf(err) == skillerr.TooLarge {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		skillerrtest.Want(t, tc.name, err, skillerr.TooLarge, ReasonTooLarge)
	}
}

// TestDecodeSteps: the arguments of a call about thousands of skills (a
// list of 1,000 names: 1,002 tokens, and the key) are checked with a step
// (pace.Step) every 16 tokens. Counted, not timed: web/bench/calls.mjs
// times previewNotes of 5,100 rows.
func TestDecodeSteps(t *testing.T) {
	const n = 1000
	raw, err := json.Marshal(map[string]any{"skills": make([]string, n)})
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	stop := pacetest.Observe(func() { steps++ })
	var sel selectArgs
	err = Decode(raw, nil, &sel)
	stop()
	if err != nil || len(sel.Skills) != n {
		t.Fatalf("Decode: %d skills, %v", len(sel.Skills), err)
	}
	if want := n / 16; steps < want {
		t.Errorf("%d names checked with %d steps, want %d or more", n, steps, want)
	}
}

// FuzzDecode checks Decode's promise on any input: it never panics, and
// when it accepts, the input is one object whose every key is exactly a
// field's JSON name, given once, within the limits.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"session":"a","skills":["x"]}`, `{"ſession":"b"}`, `{"session":"a","session":"b"}`, `[]`, `{}`,
		`{"skills":[[[[1]]]]}`, `{"budget":1e999}`, `{"session":"\ud800"}`, `{"SESSION":"x"}`, ` `,
		"\v{}", " {} ",
	} {
		f.Add([]byte(s))
	}
	lim := &Limits{Bytes: 4096, List: 8, String: 64, Depth: 4}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var s sessionArgs
		var sel selectArgs
		err := Decode(raw, lim, &s, &sel)
		if code := skillerr.CodeOf(err); err != nil && code != skillerr.InvalidArgument && code != skillerr.TooLarge {
			t.Fatalf("Decode(%q) = %v: not a typed refusal", raw, err)
		}
		if err != nil || len(strings.TrimSpace(string(raw))) == 0 {
			return
		}
		if len(raw) > lim.Bytes {
			t.Fatalf("accepted %d bytes", len(raw))
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			t.Fatalf("accepted %q, which is not one JSON object", raw)
		}
		for k := range obj {
			if k != "session" && k != "skills" && k != "budget" {
				t.Fatalf("accepted %q with the key %q", raw, k)
			}
		}
		if len(sel.Skills) > lim.List {
			t.Fatalf("accepted a list of %d", len(sel.Skills))
		}
		if len(s.Session) > lim.String {
			t.Fatalf("accepted a string of %d bytes", len(s.Session))
		}
	})
}
