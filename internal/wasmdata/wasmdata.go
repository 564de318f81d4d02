// Package wasmdata shrinks the data section of a Go-built WebAssembly
// module: it drops data the runtime never reads, and the file and line
// tables only a traceback reads.
//
// Go's linker writes runtime.findfunctab, the table findfunc uses to map a
// PC to its function, with a 20-byte bucket for every 4 KB of PC space. On
// wasm a PC is function index<<16 + block, so the table has 16 buckets per
// function, and findfunc only ever reads the one that PC function<<16 (+
// the constant text-minpc) falls in: it is called with the function's
// index, never a block inside it. Each of the other 15 holds a small
// non-zero index between runs of zeros, which the linker writes as its own
// data segment: ~78,000 segments, about 0.75 MB of a 9 MB module. Zeroing
// the buckets findfunc never reads drops them and leaves every value it
// reads as the linker wrote it.
//
// The pc-value tables that map a PC to its file and line (pcfile, pcln of
// each function) are read only to print a traceback or answer
// runtime.Caller; the stack maps, frame sizes and inlining tables the
// runtime works with are other tables. Shrink zeroes the bytes only those
// two use and sets their offsets to 0, which the runtime reads as "no
// table": a panic's stack in the shipped module names every function but
// shows its place as ?:0. That is 0.27 MB raw and 0.15 MB gzipped of an
// 8 MB module (they are the least compressible data in it); a module
// built without Shrink keeps them, for debugging.
//
// Shrink finds the tables through the runtime's moduledata (by its
// pcHeader), checks every assumption above against the module, and fails
// rather than guess when a Go release lays them out differently.
package wasmdata

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Stats describes one Shrink.
type Stats struct {
	SegmentsBefore, SegmentsAfter int
	// Zeroed is how many bytes of findfunctab were set to zero.
	Zeroed int
	// Lines is how many bytes of file and line tables were set to zero.
	Lines int
}

const (
	secData = 11
	// A run of zeros this long or longer ends a segment. The linker
	// (cmd/link/internal/wasm.writeDataSec) splits at 8, about a header's
	// bytes, which is smallest raw; but a header (an offset, a length)
	// compresses worse than zeros, and at 16 the module is 30 KB larger
	// raw and 40 KB smaller gzipped, 30 KB brotli (32: +70/-50/-30 KB).
	segmentGap = 16
	// From the runtime (internal/abi.FuncTabBucketSize, findfuncbucket).
	bucketSize    = 4096
	subbuckets    = 16
	subbucketSize = bucketSize / subbuckets
	bucketBytes   = 4 + subbuckets
	pclnMagic     = 0xfffffff1 // internal/abi.Go120PCLnTabMagic
)

// Shrink returns wasm with the unread buckets of runtime.findfunctab and
// the file and line tables zeroed, and its data segments written again by
// segmentGap.
func Shrink(wasm []byte) ([]byte, Stats, error) {
	var st Stats
	if len(wasm) < 8 || !bytes.Equal(wasm[:4], []byte("\x00asm")) {
		return nil, st, errors.New("wasmdata: not a WebAssembly module")
	}
	secs, err := sections(wasm)
	if err != nil {
		return nil, st, err
	}
	di := -1
	for i, s := range secs {
		if s.id == secData {
			di = i
		}
	}
	if di < 0 {
		return nil, st, errors.New("wasmdata: no data section")
	}
	segs, err := segments(secs[di].body)
	if err != nil {
		return nil, st, err
	}
	st.SegmentsBefore = len(segs)
	img, err := newImage(segs)
	if err != nil {
		return nil, st, err
	}
	if st.Zeroed, err = img.clearFindfunctab(); err != nil {
		return nil, st, err
	}
	if st.Lines, err = img.clearLines(); err != nil {
		return nil, st, err
	}
	var body []byte
	body, st.SegmentsAfter = img.encode()
	out := append([]byte(nil), wasm[:8]...)
	for i, s := range secs {
		b := s.body
		if i == di {
			b = body
		}
		out = append(out, s.id)
		out = binary.AppendUvarint(out, uint64(len(b)))
		out = append(out, b...)
	}
	return out, st, nil
}

type section struct {
	id   byte
	body []byte
}

func sections(wasm []byte) ([]section, error) {
	var secs []section
	for r := wasm[8:]; len(r) > 0; {
		id := r[0]
		n, k := binary.Uvarint(r[1:])
		if k <= 0 || uint64(len(r)-1-k) < n {
			return nil, errors.New("wasmdata: truncated section")
		}
		secs = append(secs, section{id, r[1+k : 1+k+int(n)]})
		r = r[1+k+int(n):]
	}
	return secs, nil
}

type segment struct {
	offset int64
	data   []byte
}

// segments reads a data section the way Go's linker writes it: active
// segments of memory 0 at an i32.const offset.
func segments(b []byte) ([]segment, error) {
	bad := errors.New("wasmdata: a data segment is not of the form the Go linker writes")
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return nil, bad
	}
	b = b[k:]
	segs := make([]segment, 0, n)
	for range n {
		if len(b) < 2 || b[0] != 0 || b[1] != 0x41 { // memidx 0, i32.const
			return nil, bad
		}
		v, m := readSLEB(b[2:])
		if m <= 0 {
			return nil, bad
		}
		b = b[2+m:]
		if len(b) < 1 || b[0] != 0x0b { // end
			return nil, bad
		}
		l, k2 := binary.Uvarint(b[1:])
		if k2 <= 0 || uint64(len(b)-1-k2) < l {
			return nil, bad
		}
		segs = append(segs, segment{v, b[1+k2 : 1+k2+int(l)]})
		b = b[1+k2+int(l):]
	}
	if len(b) != 0 {
		return nil, bad
	}
	return segs, nil
}

// readSLEB reads a signed LEB128 number (an i32.const's operand).
func readSLEB(b []byte) (int64, int) {
	var v int64
	for i, shift := 0, 0; i < len(b) && shift < 64; i, shift = i+1, shift+7 {
		v |= int64(b[i]&0x7f) << shift
		if b[i]&0x80 == 0 {
			if b[i]&0x40 != 0 && shift+7 < 64 {
				v |= -1 << (shift + 7)
			}
			return v, i + 1
		}
	}
	return 0, 0
}

func appendSLEB(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 && c&0x40 == 0 || v == -1 && c&0x40 != 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// image is the memory the data section initialises, from base on.
type image struct {
	base int64
	mem  []byte
}

func newImage(segs []segment) (*image, error) {
	if len(segs) == 0 {
		return nil, errors.New("wasmdata: the data section is empty")
	}
	lo, hi := segs[0].offset, int64(0)
	for _, s := range segs {
		lo, hi = min(lo, s.offset), max(hi, s.offset+int64(len(s.data)))
	}
	if lo < 0 || hi-lo > 1<<30 {
		return nil, errors.New("wasmdata: data segments outside the memory Go lays out")
	}
	img := &image{base: lo, mem: make([]byte, hi-lo)}
	for _, s := range segs {
		copy(img.mem[s.offset-lo:], s.data)
	}
	return img, nil
}

// u64 reads the little-endian word at address a; ok is false outside the
// image.
func (m *image) u64(a uint64) (uint64, bool) {
	i := int64(a) - m.base
	if a > 1<<40 || i < 0 || i+8 > int64(len(m.mem)) {
		return 0, false
	}
	return binary.LittleEndian.Uint64(m.mem[i:]), true
}

// clearFindfunctab zeroes the buckets and subbuckets of
// runtime.findfunctab that findfunc never reads, and returns how many
// bytes it changed.
func (m *image) clearFindfunctab() (int, error) {
	md, err := m.moduledata()
	if err != nil {
		return 0, err
	}
	// moduledata: pcHeader, then six slices (24 bytes each: funcnametab,
	// cutab, filetab, pctab, pclntable, ftab), findfunctab, minpc,
	// maxpc, text (runtime/symtab.go).
	field := func(off uint64) uint64 { v, _ := m.u64(md + off); return v }
	table, minpc, maxpc, text := field(152), field(160), field(168), field(176)
	if maxpc <= minpc || text > minpc {
		return 0, fmt.Errorf("wasmdata: moduledata's minpc %#x, maxpc %#x, text %#x are not laid out as Go 1.26 does", minpc, maxpc, text)
	}
	// The linker's size: a 4-byte index per bucket and a byte per
	// subbucket (cmd/link/internal/ld.findfunctab).
	nbuckets := (maxpc - minpc + bucketSize - 1) / bucketSize
	nsub := (maxpc - minpc + subbucketSize - 1) / subbucketSize
	start := int64(table) - m.base
	end := start + int64(4*nbuckets+nsub)
	if start < 0 || end > int64(len(m.mem)) {
		return 0, errors.New("wasmdata: runtime.findfunctab lies outside the data section")
	}
	tab := m.mem[start:end]
	// findfunc reads bucket x/bucketSize, subbucket x%bucketSize/
	// subbucketSize, for x = pcOff<<16 + text - minpc, where pcOff is a
	// function index: the only PCs it is given are (f<<16 + block) - text
	// shifted right by 16 (runtime/symtab.go, findfunc and textOff);
	// Go 1.26 links text at 0 and the first function at index 0x1000.
	keep := make([]bool, len(tab))
	for f := (minpc - text) >> 16; ; f++ {
		if f<<16+text < minpc {
			continue
		}
		x := f<<16 + text - minpc
		b := x / bucketSize
		if b >= nbuckets {
			break
		}
		at := b * bucketBytes
		for i := at; i < min(at+4, uint64(len(keep))); i++ {
			keep[i] = true
		}
		if i := at + 4 + x%bucketSize/subbucketSize; i < uint64(len(keep)) {
			keep[i] = true
		}
	}
	zeroed := 0
	for i := range tab {
		if !keep[i] && tab[i] != 0 {
			tab[i] = 0
			zeroed++
		}
	}
	// Check the result as findfunc reads it: for every function of ftab,
	// the bucket gives its own index, so findfunc's forward scan takes no
	// step. (A bucket read that this model missed would give index 0: a
	// longer scan to the same, right function.)
	ftab, nftab := field(128), field(136)
	fi := int64(ftab) - m.base
	if nftab < 2 || fi < 0 || fi+8*int64(nftab) > int64(len(m.mem)) {
		return 0, errors.New("wasmdata: moduledata's ftab lies outside the data section")
	}
	entry := func(i uint64) uint64 { return uint64(binary.LittleEndian.Uint32(m.mem[fi+8*int64(i):])) }
	for i := uint64(0); i+1 < nftab; i++ {
		x := entry(i)<<16 + text - minpc
		at, sub := x/bucketSize*bucketBytes, x%bucketSize/subbucketSize
		if at+4+sub >= uint64(len(tab)) { // the last bucket has only the subbuckets its PCs reach
			return 0, fmt.Errorf("wasmdata: function %d has no findfunctab bucket", i)
		}
		idx := uint64(binary.LittleEndian.Uint32(tab[at:])) + uint64(tab[at+4+sub])
		if idx != i && entry(idx) != entry(i) {
			return 0, fmt.Errorf("wasmdata: findfunctab sends function %d to %d", i, idx)
		}
	}
	return zeroed, nil
}

// clearLines zeroes the pcfile and pcln tables of every function (the
// bytes no other table shares) and their offsets in its _func record, and
// returns how many bytes of tables it cleared.
func (m *image) clearLines() (int, error) {
	md, err := m.moduledata()
	if err != nil {
		return 0, err
	}
	field := func(off uint64) uint64 { v, _ := m.u64(md + off); return v }
	region := func(off uint64) ([]byte, error) { // a []byte field of moduledata
		i, n := int64(field(off))-m.base, int64(field(off+8))
		if i < 0 || n < 0 || i+n > int64(len(m.mem)) {
			return nil, errors.New("wasmdata: a pclntab slice lies outside the data section")
		}
		return m.mem[i : i+n], nil
	}
	pctab, err := region(80)
	if err != nil {
		return 0, err
	}
	pcln, err := region(104)
	if err != nil {
		return 0, err
	}
	nftab := field(136)
	if fi := int64(field(128)) - m.base; nftab < 2 || fi < 0 || fi+8*int64(nftab) > int64(len(m.mem)) {
		return 0, errors.New("wasmdata: moduledata's ftab lies outside the data section")
	}
	ftab := m.mem[int64(field(128))-m.base:][:8*nftab]
	// A table runs from its offset to the first zero value delta after
	// its first entry (runtime.step); 0 is "no table".
	extent := func(off uint32) (int, error) {
		if off == 0 {
			return 0, nil
		}
		for i, first := int(off), true; ; first = false {
			if i >= len(pctab) {
				return 0, errors.New("wasmdata: a pc-value table runs past pctab")
			}
			if pctab[i] == 0 && !first {
				return i + 1, nil
			}
			for range 2 { // value delta, pc delta: varints
				for i < len(pctab) && pctab[i]&0x80 != 0 {
					i++
				}
				i++
			}
		}
	}
	keep := make([]bool, len(pctab))
	drop := make([]bool, len(pctab))
	mark := func(set []bool, off uint32) error {
		end, err := extent(off)
		for i := int(off); err == nil && i < end; i++ {
			set[i] = true
		}
		return err
	}
	// _func (runtime/runtime2.go): entryOff, nameOff, args, deferreturn,
	// pcsp, pcfile, pcln, npcdata, cuOffset, startLine (4 bytes each),
	// funcID, flag, a pad byte, nfuncdata, then npcdata pcdata offsets.
	var funcs [][]byte
	for i := uint64(0); i+1 < nftab; i++ {
		off := uint64(binary.LittleEndian.Uint32(ftab[8*i+4:]))
		if off+44 > uint64(len(pcln)) {
			return 0, errors.New("wasmdata: a _func record lies outside pclntab")
		}
		f := pcln[off:]
		npcdata := uint64(binary.LittleEndian.Uint32(f[28:]))
		if 44+4*npcdata > uint64(len(f)) {
			return 0, errors.New("wasmdata: a _func record's pcdata lies outside pclntab")
		}
		u32 := func(at uint64) uint32 { return binary.LittleEndian.Uint32(f[at:]) }
		err := mark(keep, u32(16))
		for j := uint64(0); err == nil && j < npcdata; j++ {
			err = mark(keep, u32(44+4*j))
		}
		if err == nil {
			err = mark(drop, u32(20))
		}
		if err == nil {
			err = mark(drop, u32(24))
		}
		if err != nil {
			return 0, err
		}
		funcs = append(funcs, f)
	}
	for _, f := range funcs {
		clear(f[20:28])
	}
	n := 0
	for i := range pctab {
		if drop[i] && !keep[i] && pctab[i] != 0 {
			pctab[i] = 0
			n++
		}
	}
	return n, nil
}

// moduledata finds runtime.firstmoduledata: the word that points at the
// pcHeader (magic, 0, 0, minLC 1, ptrSize 8) followed by the funcnametab
// slice the header's offset names.
func (m *image) moduledata() (uint64, error) {
	var hdr [8]byte
	binary.LittleEndian.PutUint32(hdr[:], pclnMagic)
	hdr[6], hdr[7] = 1, 8
	var found []uint64
	for from := 0; ; {
		i := bytes.Index(m.mem[from:], hdr[:])
		if i < 0 {
			break
		}
		from += i
		pc := uint64(m.base) + uint64(from)
		from++
		nameOff, ok := m.u64(pc + 32)
		if !ok {
			continue
		}
		var ptr [8]byte
		binary.LittleEndian.PutUint64(ptr[:], pc)
		for a := 0; ; {
			j := bytes.Index(m.mem[a:], ptr[:])
			if j < 0 {
				break
			}
			a += j
			md := uint64(m.base) + uint64(a)
			a++
			if md%8 != 0 {
				continue
			}
			if names, ok := m.u64(md + 8); ok && names == pc+nameOff {
				found = append(found, md)
			}
		}
	}
	if len(found) != 1 {
		return 0, fmt.Errorf("wasmdata: found %d runtime moduledata, want 1 (a Go release with another layout?)", len(found))
	}
	return found[0], nil
}

// encode writes the image as a data section: segments of non-zero
// bytes, split where zeros run segmentGap bytes or more.
func (m *image) encode() ([]byte, int) {
	var segs []segment
	mem := m.mem
	for i := 0; i < len(mem); {
		for i < len(mem) && mem[i] == 0 {
			i++
		}
		if i == len(mem) {
			break
		}
		end := i
		for {
			for end < len(mem) && mem[end] != 0 {
				end++
			}
			z := end
			for z < len(mem) && mem[z] == 0 {
				z++
			}
			if z-end >= segmentGap || z == len(mem) {
				break
			}
			end = z
		}
		segs = append(segs, segment{m.base + int64(i), mem[i:end]})
		i = end
	}
	body := binary.AppendUvarint(nil, uint64(len(segs)))
	for _, s := range segs {
		body = append(body, 0, 0x41)
		body = appendSLEB(body, s.offset)
		body = append(body, 0x0b)
		body = binary.AppendUvarint(body, uint64(len(s.data)))
		body = append(body, s.data...)
	}
	return body, len(segs)
}

// Part is a share of the data section: the bytes its segments carry for
// one kind of data, or the segments' own headers.
type Part struct {
	Name  string
	Bytes int
}

// Layout divides the data section of a Go-built module among what the
// runtime keeps there (from moduledata), largest first; what no range
// names is "other".
func Layout(wasm []byte) ([]Part, error) {
	if len(wasm) < 8 || !bytes.Equal(wasm[:4], []byte("\x00asm")) {
		return nil, errors.New("wasmdata: not a WebAssembly module")
	}
	secs, err := sections(wasm)
	if err != nil {
		return nil, err
	}
	var body []byte
	for _, s := range secs {
		if s.id == secData {
			body = s.body
		}
	}
	segs, err := segments(body)
	if err != nil {
		return nil, err
	}
	img, err := newImage(segs)
	if err != nil {
		return nil, err
	}
	md, err := img.moduledata()
	if err != nil {
		return nil, err
	}
	field := func(off uint64) uint64 { v, _ := img.u64(md + off); return v }
	slice := func(off, elem uint64) [2]uint64 { return [2]uint64{field(off), field(off) + elem*field(off+8)} }
	ranges := []struct {
		name string
		r    [2]uint64
	}{
		{"pclntab: function names", slice(8, 1)},
		{"pclntab: file tables", [2]uint64{field(32), field(64) + field(72)}}, // cutab through filetab
		{"pclntab: pc-value tables", slice(80, 1)},
		{"pclntab: function records", [2]uint64{field(104), field(152)}}, // pclntable up to findfunctab
		{"pclntab: findfunctab", [2]uint64{field(152), field(328)}},      // up to epclntab
		{"types to etypes (type descriptors, strings)", [2]uint64{field(296), field(304)}},
		{"noptrdata (initialised, no pointers)", [2]uint64{field(192), field(200)}},
		{"data (initialised, with pointers)", [2]uint64{field(208), field(216)}},
	}
	byName := map[string]int{}
	payload := 0
	for _, s := range segs {
		lo, hi := uint64(s.offset), uint64(s.offset)+uint64(len(s.data))
		payload += len(s.data)
		left := len(s.data)
		for _, r := range ranges {
			if a, b := max(lo, r.r[0]), min(hi, r.r[1]); a < b {
				byName[r.name] += int(b - a)
				left -= int(b - a)
			}
		}
		byName["other (go:func.*, typelinks, itabs, …)"] += left
	}
	byName["segment headers"] = len(body) - payload
	parts := make([]Part, 0, len(byName))
	for name, n := range byName {
		parts = append(parts, Part{name, n})
	}
	slices.SortFunc(parts, func(a, b Part) int { return cmp.Or(b.Bytes-a.Bytes, strings.Compare(a.Name, b.Name)) })
	return parts, nil
}
