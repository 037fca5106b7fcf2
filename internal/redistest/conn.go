package redistest

import (
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/minilock/minilock/resp"
)

// DefaultTimeout bounds every read of a Conn unless its Timeout says
// otherwise.
const DefaultTimeout = 5 * time.Second

// Conn is a raw RESP connection: it sends bytes as given and reads replies
// back as bytes, with no interpretation, so two servers' answers can be
// compared byte for byte.
type Conn struct {
	// Timeout bounds each ReadReply and ReadUntilEOF; zero means
	// DefaultTimeout.
	Timeout time.Duration

	t   testing.TB // for the Must methods; set by Dial and DialFrom
	nc  net.Conn
	buf []byte // read from the socket but not yet returned
	eof bool   // the peer has closed
}

// Dial connects to addr and closes the connection when the test ends.
func Dial(t testing.TB, addr string) *Conn {
	t.Helper()
	return DialFrom(t, addr, nil)
}

// DialFrom is Dial from the local address laddr (nil: any), for tests of
// what a server does with clients from other addresses.
func DialFrom(t testing.TB, addr string, laddr net.Addr) *Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: laddr, Timeout: DefaultTimeout}
	nc, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("redistest: dial %s: %v", addr, err)
	}
	t.Cleanup(func() { nc.Close() })
	return &Conn{t: t, nc: nc}
}

// DialAddr connects to addr (host:port, or a unix socket's path when it
// starts with '/'). The caller closes the Conn.
func DialAddr(addr string) (*Conn, error) {
	network := "tcp"
	if strings.HasPrefix(addr, "/") {
		network = "unix"
	}
	nc, err := net.DialTimeout(network, addr, DefaultTimeout)
	if err != nil {
		return nil, err
	}
	return &Conn{nc: nc}, nil
}

// Close closes the connection.
func (c *Conn) Close() error { return c.nc.Close() }

// NetConn is the connection itself, for tests that shape what the socket
// does (half-close, a small receive buffer, a reset on close).
func (c *Conn) NetConn() net.Conn { return c.nc }

// The Must methods fail the test (of Dial or DialFrom) instead of
// returning an error.

// MustSend is Send.
func (c *Conn) MustSend(b []byte) {
	c.t.Helper()
	if err := c.Send(b); err != nil {
		c.t.Fatalf("redistest: write: %v", err)
	}
}

// MustDo is Do, with the reply as a string.
func (c *Conn) MustDo(args ...string) string {
	c.t.Helper()
	c.MustSend(Encode(args...))
	return c.MustReply()
}

// MustReply is ReadReply, with the reply as a string.
func (c *Conn) MustReply() string {
	c.t.Helper()
	r, err := c.ReadReply()
	if err != nil {
		c.t.Fatalf("redistest: reading a reply: %v (have %.200q)", err, r)
	}
	return string(r)
}

// MustUntilEOF is ReadUntilEOF, as a string.
func (c *Conn) MustUntilEOF() string {
	c.t.Helper()
	r, err := c.ReadUntilEOF()
	if err != nil {
		c.t.Fatalf("redistest: waiting for the server to close: %v (have %.200q)", err, r)
	}
	return string(r)
}

// Encode returns args as a RESP multibulk request.
func Encode(args ...string) []byte {
	b := []byte("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, "\r\n"...)
		b = append(b, a...)
		b = append(b, "\r\n"...)
	}
	return b
}

// Send writes b as it is.
func (c *Conn) Send(b []byte) error {
	c.nc.SetWriteDeadline(time.Now().Add(c.timeout()))
	_, err := c.nc.Write(b)
	return err
}

// Do sends args as a multibulk request and reads one reply.
func (c *Conn) Do(args ...string) ([]byte, error) {
	if err := c.Send(Encode(args...)); err != nil {
		return nil, err
	}
	return c.ReadReply()
}

// ErrClosed is returned by ReadReply when the peer closed the connection
// before a complete reply arrived.
var ErrClosed = errors.New("redistest: connection closed by peer")

// ReadReply returns exactly one complete reply (nested elements included),
// leaving any bytes after it for the next read. On error it returns what it
// had read of the incomplete reply.
func (c *Conn) ReadReply() ([]byte, error) {
	deadline := time.Now().Add(c.timeout())
	for {
		if len(c.buf) > 0 {
			rest, err := resp.Skip(c.buf)
			switch {
			case err == nil:
				n := len(c.buf) - len(rest)
				reply := append([]byte(nil), c.buf[:n]...)
				c.buf = c.buf[n:]
				return reply, nil
			case !errors.Is(err, resp.ErrIncomplete):
				return append([]byte(nil), c.buf...), err
			}
		}
		if c.eof {
			return append([]byte(nil), c.buf...), ErrClosed
		}
		if err := c.fill(deadline); err != nil {
			return append([]byte(nil), c.buf...), err
		}
	}
}

// ReadUntilEOF returns everything the peer sends until it closes the
// connection. If it does not close before the timeout, ReadUntilEOF returns
// what arrived and an error.
func (c *Conn) ReadUntilEOF() ([]byte, error) {
	deadline := time.Now().Add(c.timeout())
	for !c.eof {
		if err := c.fill(deadline); err != nil {
			out := c.buf
			c.buf = nil
			return out, err
		}
	}
	out := c.buf
	c.buf = nil
	return out, nil
}

// Buffered returns bytes received after the last reply read: a reply the
// caller did not expect.
func (c *Conn) Buffered() []byte { return c.buf }

// Closed reports whether the peer has closed the connection (as far as the
// reads so far have seen).
func (c *Conn) Closed() bool { return c.eof }

// fill reads once from the socket into c.buf.
func (c *Conn) fill(deadline time.Time) error {
	c.nc.SetReadDeadline(deadline)
	var chunk [16 << 10]byte
	n, err := c.nc.Read(chunk[:])
	c.buf = append(c.buf, chunk[:n]...)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, io.EOF) || isReset(err):
		c.eof = true
		return nil
	}
	return err
}

// isReset reports whether err is the peer resetting the connection, which
// for a test is the same as closing it.
func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && !op.Timeout()
}

func (c *Conn) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}
