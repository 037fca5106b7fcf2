package keyspace

import "testing"

// A negative count asks for that many random fields, repeats allowed:
// Redis builds any such reply (HRANDFIELD h -9223372036854775807 takes the
// server down), minilock refuses one over maxRandomReply.
func TestHRandFieldHugeCount(t *testing.T) {
	h := newKSTest(t)
	h.run("HSET", "h", "f", "v")
	for _, tc := range []struct{ args []string }{
		{[]string{"HRANDFIELD", "h", "-9223372036854775807"}},
		{[]string{"HRANDFIELD", "h", "-100000000"}},
		{[]string{"HRANDFIELD", "h", "-4611686018427387903", "WITHVALUES"}},
	} {
		if got := h.run(tc.args...); got != errReply(errRandomReply.Msg) {
			t.Errorf("%q: %q", tc.args, got)
		}
	}
	if got := h.run("HRANDFIELD", "h", "-3"); got != "*3\r\n$1\r\nf\r\n$1\r\nf\r\n$1\r\nf\r\n" {
		t.Errorf("HRANDFIELD h -3: %q", got)
	}
}
