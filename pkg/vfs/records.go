package vfs

import "encoding/binary"

// splitRecords reads the layout of records in js/outside.ts: the number
// of records n, n key lengths and n value lengths (32 bits,
// little-endian), the keys in UTF-8, then the values.
func splitRecords(buf []byte) ([]Record, bool) {
	u32 := func(at int) (int, bool) {
		if at < 0 || at+4 > len(buf) {
			return 0, false
		}
		return int(binary.LittleEndian.Uint32(buf[at:])), true
	}
	n, ok := u32(0)
	if !ok || n > (len(buf)-4)/8 {
		return nil, false
	}
	recs := make([]Record, n)
	at := 4 + 8*n
	for i := range recs {
		k, _ := u32(4 + 4*i)
		if k > len(buf)-at {
			return nil, false
		}
		recs[i].Key = string(buf[at : at+k])
		at += k
	}
	for i := range recs {
		v, _ := u32(4 + 4*(n+i))
		if v > len(buf)-at {
			return nil, false
		}
		recs[i].Value = buf[at : at+v : at+v]
		at += v
	}
	return recs, at == len(buf)
}
