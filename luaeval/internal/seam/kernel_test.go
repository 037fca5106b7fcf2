package seam

import (
	"runtime"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

func inst(op, a, b, c int) uint32 { return uint32(op)<<26 | uint32(a)<<18 | uint32(c)<<9 | uint32(b) }

func instBx(op, a, sbx int) uint32 { return uint32(op)<<26 | uint32(a)<<18 | uint32(sbx+maxArgSbx) }

// sumProto is `local s = 0 for i = 1, 10 do s = s + i end`, with a call
// in the body when call is set.
func sumProto(call bool) *lua.FunctionProto {
	body := []uint32{inst(lua.OP_ADD, 0, 0, 4)}
	if call {
		body = append(body, inst(lua.OP_CALL, 5, 1, 1))
	}
	code := []uint32{inst(lua.OP_LOADK, 0, 0, 0), inst(lua.OP_LOADK, 1, 1, 0), inst(lua.OP_LOADK, 2, 2, 0),
		inst(lua.OP_LOADK, 3, 1, 0), instBx(lua.OP_FORPREP, 1, len(body))}
	code = append(code, body...)
	code = append(code, instBx(lua.OP_FORLOOP, 1, -len(body)-1), inst(lua.OP_RETURN, 0, 2, 0))
	return &lua.FunctionProto{Code: code, Constants: []lua.LValue{lua.LNumber(0), lua.LNumber(1), lua.LNumber(10)},
		NumUsedRegisters: 6}
}

// TestKernelAnalysis: the loop's operations and what must hold numbers
// when it starts; a call makes it no kernel.
func TestKernelAnalysis(t *testing.T) {
	k := analyse(sumProto(false), 4, nil)
	if !k.ok || len(k.ops) != 2 || k.ops[0].code != kAdd || k.ops[1].code != kForLoop {
		t.Fatalf("kernel %+v", k)
	}
	// s, the index, the limit and the step are read first; i (register
	// 4) is written by the FORLOOP before the body reads it.
	var want uint64
	for i, r := range k.regs {
		if r != 4 {
			want |= 1 << i
		}
	}
	if k.live&(1<<len(k.regs)-1) != want {
		t.Fatalf("live %b, want %b (registers %v)", k.live, want, k.regs)
	}
	if k := analyse(sumProto(true), 4, nil); k.ok {
		t.Fatal("a loop with a call is a kernel")
	}
}

// TestKernelCacheHoldsNoProto: the analyses are cached, and the cache
// does not keep a proto alive (scripts flushed are collected).
func TestKernelCacheHoldsNoProto(t *testing.T) {
	p := sumProto(false)
	k := kernelOf(p, 4, nil)
	if !k.ok || kernelOf(p, 4, nil) != k {
		t.Fatal("the kernel is not cached")
	}
	q := sumProto(true)
	if kernelOf(q, 4, nil).ok || kernelOf(q, 4, nil) != kernelOf(q, 4, nil) {
		t.Fatal("no kernel is not cached")
	}
	collected := make(chan struct{}, 2)
	runtime.AddCleanup(p, func(struct{}) { collected <- struct{}{} }, struct{}{})
	runtime.AddCleanup(q, func(struct{}) { collected <- struct{}{} }, struct{}{})
	p, q = nil, nil
	for n, i := 0, 0; n < 2; i++ {
		if i == 100 {
			t.Fatal("the cache keeps protos alive")
		}
		runtime.GC()
		select {
		case <-collected:
			n++
		case <-time.After(10 * time.Millisecond):
		}
	}
}
