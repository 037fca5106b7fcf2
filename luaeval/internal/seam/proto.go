package seam

import (
	lua "github.com/yuin/gopher-lua"
)

// SetStringConstants fills p's unexported stringConstants, which gopher-lua's
// VM reads for OP_GETGLOBAL, OP_SETGLOBAL and the *KS table instructions:
// entry i is Constants[i]'s text when that is a string, "" otherwise. A
// compiler other than gopher-lua's calls it on every prototype it makes.
// It reports false, and changes nothing, when the hooks are off.
func SetStringConstants(p *lua.FunctionProto) bool {
	if !Enabled() {
		return false
	}
	sc := make([]string, len(p.Constants))
	for i, k := range p.Constants {
		switch k := k.(type) {
		case lua.LString:
			sc[i] = string(k)
		case lua.LNumber:
			// The same number, boxed as the VM loop's results are: a
			// small integer constant is then one of the static ones,
			// which the loop's integer arithmetic recognises.
			p.Constants[i] = Number(float64(k))
		}
	}
	protoOf(p).stringConstants = sc
	return true
}
