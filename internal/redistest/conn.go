package redistest

import (
	"errors"
	"io"
	"net"
	"strconv"
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

	nc  net.Conn
	buf []byte // read from the socket but not yet returned
	eof bool   // the peer has closed
}

// Dial connects to addr and closes the connection when the test ends.
func Dial(t testing.TB, addr string) *Conn {
	t.Helper()
	c, err := DialAddr(addr)
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// DialAddr connects to addr. The caller closes the Conn.
func DialAddr(addr string) (*Conn, error) {
	nc, err := net.DialTimeout("tcp", addr, DefaultTimeout)
	if err != nil {
		return nil, err
	}
	return &Conn{nc: nc}, nil
}

// Close closes the connection.
func (c *Conn) Close() error { return c.nc.Close() }

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
