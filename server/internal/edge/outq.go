package edge

import "net"

// outQueue is output waiting for a socket, in pieces of at most
// outPiece bytes, as
// Redis's reply list is blocks of 16 KiB. A slow reader's backlog then
// costs its bytes: one growing []byte cost up to three times as much,
// each growth copying it while the old copies waited for the collector
// (a pattern subscriber that never reads held 100 MB on the way to its
// 32 MB limit; Redis, 38 MB).
type outQueue struct {
	bufs  [][]byte // none empty
	sent  int      // bytes of bufs[0] written already
	n     int      // bytes queued and not written
	spare []byte   // the last piece written, kept for the next push
}

const outPiece = 16 << 10

// push queues a copy of b.
func (q *outQueue) push(b []byte) {
	q.n += len(b)
	if k := len(q.bufs); k > 0 {
		last := q.bufs[k-1]
		room := cap(last) - len(last)
		if cap(last) < outPiece {
			// A piece that started small grows as a slice does, up to
			// outPiece: a queue of a few small messages stays small.
			room = outPiece - len(last)
		}
		m := min(len(b), room)
		q.bufs[k-1] = append(last, b[:m]...)
		b = b[m:]
	} else if len(b) > 0 {
		m := min(len(b), outPiece)
		q.bufs = append(q.bufs, append(q.spare, b[:m]...))
		q.spare = nil
		b = b[m:]
	}
	for len(b) > 0 {
		m := min(len(b), outPiece)
		q.bufs = append(q.bufs, append(make([]byte, 0, outPiece), b[:m]...))
		b = b[m:]
	}
}

// size is the bytes not written yet.
func (q *outQueue) size() int { return q.n }

// writeTo writes the queue with write, which may write less than it is
// given (a non-blocking socket), and drops what was written.
func (q *outQueue) writeTo(write func([]byte) (int, error)) error {
	for len(q.bufs) > 0 {
		p := q.bufs[0]
		n, err := write(p[q.sent:])
		q.sent += n
		q.n -= n
		if q.sent < len(p) || err != nil {
			return err
		}
		q.dropFirst()
	}
	return nil
}

// dropFirst forgets the first piece, written; the last one is kept as
// spare unless it is bigger than an idle connection keeps.
func (q *outQueue) dropFirst() {
	q.sent = 0
	if len(q.bufs) == 1 {
		if cap(q.bufs[0]) <= MaxIdleBuffer {
			q.spare = q.bufs[0][:0]
		}
		q.bufs = nil
		return
	}
	q.bufs[0] = nil
	q.bufs = q.bufs[1:]
}

// take hands over what is queued as net.Buffers, for one writev, and
// leaves the queue empty.
func (q *outQueue) take() net.Buffers {
	b := net.Buffers(q.bufs)
	if len(b) > 0 {
		b[0] = b[0][q.sent:]
	}
	*q = outQueue{}
	return b
}

// reset empties the queue.
func (q *outQueue) reset() { *q = outQueue{} }

// MaxIdleBuffer is the reply buffer a connection keeps between batches;
// a larger one (a big GET) is dropped rather than held while idle.
const MaxIdleBuffer = 64 << 10
