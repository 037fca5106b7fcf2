package seam

import (
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// Strings made in one allocation.
//
// A Lua string held in an lua.LValue is a string header behind a pointer
// to bytes: building one from a []byte costs the buffer, the copy that
// string(buf) makes and the header's box, three allocations for every `..`.
// newString makes the header and the bytes one pointer-free block instead:
// the header's pointer into its own block needs no scanning (the block is
// kept alive by the LValue that points at it, or by any string value
// copied out of it, whose pointer is inside the block).

// stringTab is the interface table word of an LString held as an LValue.
var stringTab = func() unsafe.Pointer {
	var v lua.LValue = lua.LString("x")
	return (*ifaceWords)(unsafe.Pointer(&v)).tab
}()

type stringHeader struct {
	data unsafe.Pointer
	len  int
}

const headerBytes = int(unsafe.Sizeof(stringHeader{}))

// newString returns an LString of n bytes and those bytes, to be filled
// before the value is used.
func newString(n int) (lua.LValue, []byte) {
	if n == 0 {
		return lua.LString(""), nil
	}
	blk := make([]byte, headerBytes+n)
	b := blk[headerBytes:]
	h := (*stringHeader)(unsafe.Pointer(&blk[0]))
	// Written as a number: the block is pointer-free to the collector.
	*(*uintptr)(unsafe.Pointer(&h.data)) = uintptr(unsafe.Pointer(&b[0]))
	h.len = n
	var v lua.LValue
	*(*ifaceWords)(unsafe.Pointer(&v)) = ifaceWords{stringTab, unsafe.Pointer(h)}
	return v, b
}

// NewString is newString for the libraries: a string of n bytes, filled
// through the returned slice before the value is used.
func NewString(n int) (lua.LValue, []byte) { return newString(n) }
