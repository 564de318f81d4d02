package wasitest

// Import is one import of a Module: from module, named name; a memory
// import when memory is set, else a function.
type Import struct {
	Module, Name string
	Memory       bool
}

// Module returns the smallest WASI command module with the given imports
// and memory limits (flags 0: min; 1: min, max; others as given): one
// empty function exported as _start, and the memory exported as memory.
// No limits: no memory section.
func Module(imports []Import, memFlags byte, memLimits ...uint32) []byte {
	m := []byte("\x00asm\x01\x00\x00\x00")
	m = append(m, section(1, []byte{1, 0x60, 0, 0})...) // type 0: () -> ()
	if imports != nil {
		body := leb(nil, uint32(len(imports)))
		for _, im := range imports {
			body = name(name(body, im.Module), im.Name)
			if im.Memory {
				body = append(body, 2, 0, 1)
			} else {
				body = append(body, 0, 0)
			}
		}
		m = append(m, section(2, body)...)
	}
	m = append(m, section(3, []byte{1, 0})...) // one function of type 0
	if memLimits != nil {
		body := []byte{1, memFlags}
		for _, l := range memLimits {
			body = leb(body, l)
		}
		m = append(m, section(5, body)...)
	}
	exp := leb(nil, 2)
	exp = leb(append(name(exp, "_start"), 0), uint32(len(imports)))
	exp = append(name(exp, "memory"), 2, 0)
	m = append(m, section(7, exp)...)
	return append(m, section(10, []byte{1, 2, 0, 0x0b})...) // the function's empty body
}

func section(id byte, body []byte) []byte { return append(leb([]byte{id}, uint32(len(body))), body...) }

func name(b []byte, s string) []byte { return append(leb(b, uint32(len(s))), s...) }

func leb(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}
