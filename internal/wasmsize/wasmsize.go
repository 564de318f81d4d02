// Package wasmsize attributes the code of a Go-built WebAssembly module to
// the Go packages it came from, so `make bench` can show where the module's
// size goes. It reads the function bodies of the code section and their
// names from the "name" custom section (present unless linked with -s).
package wasmsize

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Package is one row of the table: a Go package and the bytes of its
// function bodies.
type Package struct {
	Path  string
	Funcs int
	Bytes int
}

// Sizes is the breakdown of one module.
type Sizes struct {
	Total    int       // the whole file
	Code     int       // the code section
	Data     int       // the data section (not attributable by name)
	Packages []Package // by Bytes, largest first
}

const (
	secImport = 2
	secCode   = 10
	secData   = 11
	secCustom = 0
)

// Read parses a module built from the packages pkgs (import paths, as
// `go list -deps` prints them). It fails if the module has no function
// names.
func Read(wasm []byte, pkgs []string) (Sizes, error) {
	if len(wasm) < 8 || !bytes.Equal(wasm[:4], []byte("\x00asm")) {
		return Sizes{}, errors.New("wasmsize: not a WebAssembly module")
	}
	s := Sizes{Total: len(wasm)}
	var imported int
	var bodies []int
	var names map[int]string
	r := bytes.NewReader(wasm[8:])
	for r.Len() > 0 {
		id, err := r.ReadByte()
		if err != nil {
			return s, err
		}
		n, err := uleb(r)
		if err != nil {
			return s, err
		}
		sec := make([]byte, n)
		if _, err := io.ReadFull(r, sec); err != nil {
			return s, fmt.Errorf("wasmsize: section %d: %w", id, err)
		}
		switch id {
		case secImport:
			if imported, err = countFuncImports(sec); err != nil {
				return s, err
			}
		case secCode:
			s.Code = len(sec)
			if bodies, err = bodySizes(sec); err != nil {
				return s, err
			}
		case secData:
			s.Data = len(sec)
		case secCustom:
			sr := bytes.NewReader(sec)
			name, err := str(sr)
			if err == nil && name == "name" {
				if names, err = funcNames(sr); err != nil {
					return s, err
				}
			}
		}
	}
	if names == nil {
		return s, errors.New("wasmsize: the module has no name section (built with -ldflags=-s?)")
	}
	byName := map[string]string{"main": "main"} // the linker names the main package "main"
	for _, p := range pkgs {
		byName[linkerName(p)] = p
	}
	byPkg := map[string]*Package{}
	for i, size := range bodies {
		p := pkgOf(names[imported+i], byName)
		row := byPkg[p]
		if row == nil {
			row = &Package{Path: p}
			byPkg[p] = row
		}
		row.Funcs++
		row.Bytes += size
	}
	for _, row := range byPkg {
		s.Packages = append(s.Packages, *row)
	}
	sort.Slice(s.Packages, func(i, j int) bool {
		a, b := s.Packages[i], s.Packages[j]
		return a.Bytes > b.Bytes || a.Bytes == b.Bytes && a.Path < b.Path
	})
	return s, nil
}

// linkerName is how Go's wasm linker spells a package path in symbol
// names: the object-file prefix (see cmd/internal/objabi.PathToPrefix:
// "." after the last "/" and unusual bytes escaped as %xx) with "/", "%"
// and "." turned into "_", "_" and "_2e"-style escapes.
func linkerName(path string) string {
	last := strings.LastIndexByte(path, '/')
	var b strings.Builder
	for i := 0; i < len(path); i++ {
		c := path[i]
		switch {
		case c <= ' ' || c == '%' || c == '"' || c >= 0x7f || c == '.' && i > last:
			fmt.Fprintf(&b, "_%02x", c)
		case c == '/':
			b.WriteByte('_')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// pkgOf is the package of a symbol: the longest known package whose linker
// name is followed by "." ("runtime.mallocgc", "fmt.__pp_.doPrintf",
// "type:.eq.encoding_json.T"); symbols of no known package are "(other)".
func pkgOf(sym string, byName map[string]string) string {
	sym = strings.TrimPrefix(sym, "type:.eq.")
	for i := len(sym) - 1; i > 0; i-- {
		if sym[i] != '.' {
			continue
		}
		if p, ok := byName[sym[:i]]; ok {
			return p
		}
	}
	return "(other)"
}

func countFuncImports(sec []byte) (int, error) {
	r := bytes.NewReader(sec)
	n, err := uleb(r)
	if err != nil {
		return 0, err
	}
	funcs := 0
	for range n {
		if _, err := str(r); err != nil {
			return 0, err
		}
		if _, err := str(r); err != nil {
			return 0, err
		}
		kind, err := r.ReadByte()
		if err != nil {
			return 0, err
		}
		switch kind {
		case 0: // func: type index
			funcs++
			_, err = uleb(r)
		case 1: // table: reftype + limits
			if _, err = r.ReadByte(); err == nil {
				err = limits(r)
			}
		case 2: // memory
			err = limits(r)
		case 3: // global: valtype + mut
			_, err = r.ReadByte()
			if err == nil {
				_, err = r.ReadByte()
			}
		default:
			err = fmt.Errorf("wasmsize: import kind %d", kind)
		}
		if err != nil {
			return 0, err
		}
	}
	return funcs, nil
}

func limits(r *bytes.Reader) error {
	flag, err := r.ReadByte()
	if err != nil {
		return err
	}
	if _, err := uleb(r); err != nil {
		return err
	}
	if flag&1 != 0 {
		_, err = uleb(r)
	}
	return err
}

func bodySizes(sec []byte) ([]int, error) {
	r := bytes.NewReader(sec)
	n, err := uleb(r)
	if err != nil {
		return nil, err
	}
	sizes := make([]int, 0, n)
	for range n {
		size, err := uleb(r)
		if err != nil {
			return nil, err
		}
		if _, err := r.Seek(int64(size), io.SeekCurrent); err != nil {
			return nil, err
		}
		sizes = append(sizes, int(size))
	}
	return sizes, nil
}

func funcNames(r *bytes.Reader) (map[int]string, error) {
	for r.Len() > 0 {
		id, err := r.ReadByte()
		if err != nil {
			return nil, err
		}
		size, err := uleb(r)
		if err != nil {
			return nil, err
		}
		if id != 1 {
			if _, err := r.Seek(int64(size), io.SeekCurrent); err != nil {
				return nil, err
			}
			continue
		}
		n, err := uleb(r)
		if err != nil {
			return nil, err
		}
		names := make(map[int]string, n)
		for range n {
			idx, err := uleb(r)
			if err != nil {
				return nil, err
			}
			name, err := str(r)
			if err != nil {
				return nil, err
			}
			names[int(idx)] = name
		}
		return names, nil
	}
	return nil, errors.New("wasmsize: the name section has no function names")
}

func str(r *bytes.Reader) (string, error) {
	n, err := uleb(r)
	if err != nil {
		return "", err
	}
	if uint64(r.Len()) < n {
		return "", io.ErrUnexpectedEOF
	}
	b := make([]byte, n)
	_, err = io.ReadFull(r, b)
	return string(b), err
}

func uleb(r *bytes.Reader) (uint64, error) {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		b, err := r.ReadByte()
		if err != nil {
			return 0, err
		}
		v |= uint64(b&0x7f) << shift
		if b&0x80 == 0 {
			return v, nil
		}
	}
	return 0, errors.New("wasmsize: LEB128 overflow")
}
