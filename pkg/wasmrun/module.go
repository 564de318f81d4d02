package wasmrun

import (
	"errors"
	"fmt"

	"github.com/skillfs/skillfs/pkg/skillerr"
)

// ModulePath is where a skill keeps its module, relative to the skill.
const ModulePath = "wasm/skill.wasm"

// PageSize is the size of a WebAssembly memory page.
const PageSize = 64 << 10

// MaxModuleSize bounds the module read and rewritten, so that checking it
// costs at most one pass over this many bytes.
const MaxModuleSize = 64 << 20

// MaxTableSize bounds the entries of a module's table, written as its
// maximum like the memory cap: a table's entries are the engine's memory,
// outside the memory cap (Go's own modules use about 10,000).
const MaxTableSize = 1 << 20

// Reasons of WasmError.
const (
	ReasonNoModule       = "no-module"        // the skill ships no wasm/skill.wasm
	ReasonMalformed      = "malformed"        // not a WebAssembly binary this reads
	ReasonImport         = "import"           // imports something outside WASI preview 1
	ReasonMemoryTooLarge = "memory-too-large" // declares more memory than the cap
	ReasonMemory         = "memory"           // no memory, several, imported, shared or 64-bit
	ReasonUncapped       = "uncapped"         // memory no cap bounds: GC types, several or large tables
	ReasonNoStart        = "no-start"         // no _start or memory export: not a WASI command
	ReasonFailed         = "failed"           // the run ended with a non-zero exit or a trap
)

// preview1 is every function WASI preview 1 defines
// (wasi_snapshot_preview1), the only imports a module may have.
var preview1 = map[string]bool{
	"args_get": true, "args_sizes_get": true, "environ_get": true, "environ_sizes_get": true,
	"clock_res_get": true, "clock_time_get": true, "fd_advise": true, "fd_allocate": true,
	"fd_close": true, "fd_datasync": true, "fd_fdstat_get": true, "fd_fdstat_set_flags": true,
	"fd_fdstat_set_rights": true, "fd_filestat_get": true, "fd_filestat_set_size": true,
	"fd_filestat_set_times": true, "fd_pread": true, "fd_prestat_get": true, "fd_prestat_dir_name": true,
	"fd_pwrite": true, "fd_read": true, "fd_readdir": true, "fd_renumber": true, "fd_seek": true,
	"fd_sync": true, "fd_tell": true, "fd_write": true, "path_create_directory": true,
	"path_filestat_get": true, "path_filestat_set_times": true, "path_link": true, "path_open": true,
	"path_readlink": true, "path_remove_directory": true, "path_rename": true, "path_symlink": true,
	"path_unlink_file": true, "poll_oneoff": true, "proc_exit": true, "proc_raise": true,
	"sched_yield": true, "random_get": true, "sock_accept": true, "sock_recv": true,
	"sock_send": true, "sock_shutdown": true,
}

const (
	secType   = 1
	secImport = 2
	secTable  = 4
	secMemory = 5
	secExport = 7
)

// Capped checks module and returns a copy whose memory maximum is
// maxPages pages and whose table's maximum is at most MaxTableSize: the
// engine then refuses to grow them further, whatever the module asks. A
// module is refused (WasmError) when it imports anything but WASI
// preview 1 functions, when its memory is missing, imported, shared,
// 64-bit, one of several or declared with more than maxPages initial
// pages, when it defines garbage-collected types or more than one table
// or a table larger than MaxTableSize (memory outside any cap), or when it
// does not export _start and its memory. The cost is one pass over the
// module.
func Capped(module []byte, maxPages uint32) ([]byte, error) {
	if len(module) > MaxModuleSize {
		return nil, wasmErr(skillerr.TooLarge, "", fmt.Sprintf("the module is larger than %d MiB", MaxModuleSize>>20))
	}
	if len(module) < 8 || string(module[:4]) != "\x00asm" || module[4] != 1 || module[5] != 0 || module[6] != 0 || module[7] != 0 {
		return nil, wasmErr(skillerr.WasmError, ReasonMalformed, "is not a WebAssembly module (version 1)")
	}
	var patches []patch // the memory and table sections, rewritten
	memories, start, memExport := 0, false, false
	var minPages uint32
	r := reader{b: module, i: 8}
	for r.i < len(module) {
		secStart := r.i
		id := r.byte()
		size := r.u32()
		if r.err != nil || int(size) > len(module)-r.i {
			return nil, malformed("a section runs past the end")
		}
		body := reader{b: module[:r.i+int(size)], i: r.i}
		r.i += int(size)
		switch id {
		case secType:
			if err := checkTypes(&body); err != nil {
				return nil, err
			}
		case secImport:
			if err := checkImports(&body); err != nil {
				return nil, err
			}
		case secTable:
			t, err := cappedTable(&body)
			if err != nil {
				return nil, err
			}
			patches = append(patches, patch{secStart, r.i, section(secTable, t)})
		case secMemory:
			n := body.u32()
			if n != 1 || body.err != nil || memories > 0 {
				return nil, wasmErr(skillerr.WasmError, ReasonMemory, "must define exactly one memory")
			}
			flags := body.byte()
			if flags > 1 {
				return nil, wasmErr(skillerr.WasmError, ReasonMemory, "its memory is shared or 64-bit, which skills may not use")
			}
			minPages = body.u32()
			if flags == 1 {
				body.u32()
			}
			memories++
			// One memory with limits {min, max: maxPages}.
			patches = append(patches, patch{secStart, r.i, section(secMemory, appendU32(appendU32([]byte{1, 1}, minPages), maxPages))})
		case secExport:
			n := body.u32()
			for k := uint32(0); k < n && body.err == nil; k++ {
				name := body.name()
				kind := body.byte()
				body.u32()
				start = start || (name == "_start" && kind == 0)
				memExport = memExport || (name == "memory" && kind == 2)
			}
		}
		if body.err != nil {
			return nil, malformed(body.err.Error())
		}
	}
	switch {
	case memories == 0:
		return nil, wasmErr(skillerr.WasmError, ReasonMemory, "defines no memory of its own")
	case !start || !memExport:
		return nil, wasmErr(skillerr.WasmError, ReasonNoStart, "does not export _start and memory: it is not a WASI command module")
	case minPages > maxPages:
		return nil, wasmErr(skillerr.WasmError, ReasonMemoryTooLarge,
			fmt.Sprintf("declares %d MiB of memory, more than the %d MiB allowed", uint64(minPages)*PageSize>>20, uint64(maxPages)*PageSize>>20))
	}
	out := make([]byte, 0, len(module)+32)
	at := 0
	for _, p := range patches {
		out = append(append(out, module[at:p.start]...), p.with...)
		at = p.end
	}
	return append(out, module[at:]...), nil
}

// patch replaces module[start:end] with with.
type patch struct {
	start, end int
	with       []byte
}

func section(id byte, body []byte) []byte {
	return append(appendU32([]byte{id}, uint32(len(body))), body...)
}

// checkTypes refuses every type but a function's: structs and arrays live
// in the engine's garbage-collected heap, which no memory cap bounds.
func checkTypes(r *reader) error {
	n := r.u32()
	for k := uint32(0); k < n && r.err == nil; k++ {
		if form := r.byte(); form != 0x60 && r.err == nil {
			return wasmErr(skillerr.WasmError, ReasonUncapped,
				"defines garbage-collected types (structs, arrays), whose memory no cap bounds")
		}
		for range 2 { // parameters, then results
			for m := r.u32(); m > 0 && r.err == nil; m-- {
				r.valType()
			}
		}
	}
	return nil
}

// cappedTable returns the body of a table section of one table, its
// maximum at most MaxTableSize, or refuses the section.
func cappedTable(r *reader) ([]byte, error) {
	n := r.u32()
	if r.err != nil || n == 0 {
		return []byte{0}, r.err
	}
	if n > 1 {
		return nil, wasmErr(skillerr.WasmError, ReasonUncapped, "defines more than one table")
	}
	typeStart := r.i
	if r.valType(); r.err != nil {
		return nil, r.err
	}
	typ := r.b[typeStart:r.i]
	if typ[0] == 0x40 {
		return nil, wasmErr(skillerr.WasmError, ReasonUncapped, "defines a table with an initializer, which this does not read")
	}
	flags := r.byte()
	if flags > 1 {
		return nil, wasmErr(skillerr.WasmError, ReasonUncapped, "its table is shared or 64-bit")
	}
	lo, hi := r.u32(), uint32(MaxTableSize)
	if flags == 1 {
		hi = min(r.u32(), hi)
	}
	switch {
	case r.err != nil:
		return nil, r.err
	case lo > MaxTableSize:
		return nil, wasmErr(skillerr.WasmError, ReasonUncapped, fmt.Sprintf("declares a table of %d entries, more than the %d allowed", lo, MaxTableSize))
	case hi < lo:
		return nil, malformed("a table's maximum is below its minimum")
	}
	b := append([]byte{1}, typ...)
	return appendU32(appendU32(append(b, 1), lo), hi), nil
}

func checkImports(r *reader) error {
	n := r.u32()
	for k := uint32(0); k < n && r.err == nil; k++ {
		mod, name := r.name(), r.name()
		kind := r.byte()
		if r.err != nil {
			break
		}
		if kind == 2 {
			return wasmErr(skillerr.WasmError, ReasonMemory, "imports its memory; a skill's module must define its own")
		}
		if mod != "wasi_snapshot_preview1" || kind != 0 || !preview1[name] {
			return wasmErr(skillerr.WasmError, ReasonImport,
				fmt.Sprintf("imports %.64q from %.64q, which is not a WASI preview 1 function", name, mod))
		}
		r.u32() // the function's type
	}
	return nil
}

func malformed(why string) error {
	return wasmErr(skillerr.WasmError, ReasonMalformed, "is not a valid WebAssembly module: "+why)
}

func wasmErr(code skillerr.Code, reason, msg string) error {
	return &skillerr.Error{Code: code, Reason: reason, Subject: ModulePath, Msg: msg}
}

// reader reads the binary format's values; the first error sticks.
type reader struct {
	b   []byte
	i   int
	err error
}

var errShort = errors.New("it ends in the middle of a value")

func (r *reader) byte() byte {
	if r.err != nil || r.i >= len(r.b) {
		r.err = errShort
		return 0
	}
	c := r.b[r.i]
	r.i++
	return c
}

// u32 reads an unsigned LEB128 of at most 5 bytes, the last of which
// may carry 4 bits only (the binary format's rule: anything else is
// another number to the engine).
func (r *reader) u32() uint32 {
	var v uint32
	for shift := 0; shift < 35; shift += 7 {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		if shift == 28 && c > 0x0f {
			r.err = errors.New("a number does not fit in 32 bits")
			return 0
		}
		v |= uint32(c&0x7f) << shift
		if c&0x80 == 0 {
			return v
		}
	}
	return 0
}

// valType skips a value type: one byte, or a reference type's two
// (0x63 or 0x64, then a heap type, a signed LEB128).
func (r *reader) valType() {
	if c := r.byte(); c == 0x63 || c == 0x64 {
		for r.err == nil && r.byte()&0x80 != 0 {
		}
	}
}

func (r *reader) name() string {
	n := r.u32()
	if r.err != nil || int(n) > len(r.b)-r.i {
		r.err = errShort
		return ""
	}
	s := string(r.b[r.i : r.i+int(n)])
	r.i += int(n)
	return s
}

func appendU32(b []byte, v uint32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}
