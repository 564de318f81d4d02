package vfs

import (
	"encoding/binary"
	"testing"
)

// TestSplitRecords reads records' layout (js/outside.ts) and refuses one
// whose lengths do not add up to the buffer; each value is capped at its
// end, so appending to one cannot write over the next.
func TestSplitRecords(t *testing.T) {
	layout := func(n uint32, lens []uint32, body string) []byte {
		b := binary.LittleEndian.AppendUint32(nil, n)
		for _, l := range lens {
			b = binary.LittleEndian.AppendUint32(b, l)
		}
		return append(b, body...)
	}
	recs, ok := splitRecords(layout(2, []uint32{1, 2, 3, 0}, "abbxyz"))
	if !ok || len(recs) != 2 || recs[0].Key != "a" || recs[1].Key != "bb" || string(recs[0].Value) != "xyz" || len(recs[1].Value) != 0 {
		t.Fatalf("splitRecords = %q, %v", recs, ok)
	}
	if cap(recs[0].Value) != 3 {
		t.Errorf("the first value's capacity is %d, past its end", cap(recs[0].Value))
	}
	for name, b := range map[string][]byte{
		"empty":          nil,
		"count too big":  layout(1<<30, nil, ""),
		"key too long":   layout(1, []uint32{5, 0}, "abc"),
		"value too long": layout(1, []uint32{1, 9}, "ab"),
		"bytes left":     layout(1, []uint32{1, 1}, "abc"),
	} {
		if _, ok := splitRecords(b); ok {
			t.Errorf("%s: accepted", name)
		}
	}
	if recs, ok := splitRecords(layout(0, nil, "")); !ok || len(recs) != 0 {
		t.Errorf("no records: %v, %v", recs, ok)
	}
}
