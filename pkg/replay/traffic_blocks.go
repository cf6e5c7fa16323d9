package replay

import (
	"bytes"
	"fmt"
	"io"
	"runtime"

	"github.com/mvpctl/mvpctl/pkg/auditlog"
)

// maxLine bounds one line. Audit events at RequestResponse level carry whole objects; a
// longer line is counted as malformed, not buffered.
const maxLine = 16 << 20

const maxExamples = 5

// blockSize is the size of the blocks the input is cut into; blocksInFlight bounds the blocks
// read and not yet returned by Next (a block grows past blockSize only to hold one long line).
const (
	blockSize      = 1 << 20
	blocksInFlight = 4
	readBuffer     = 64 << 10
)

// block is a run of whole lines and what the workers read from it.
type block struct {
	buf   []byte
	lines int  // lines in buf, or 1 for an overlong line
	long  bool // buf is empty: the line was longer than maxLine and was drained
	// err is the read error that ended the input after buf; errInLong is set when it struck
	// while draining an overlong line.
	err       error
	errInLong bool

	// events are the block's requests, pairs the distinct (user agent, request class) among
	// them (blockwriter.go).
	events    []blockEvent
	pairs     []blockPair
	arena     []byte
	bad       []badLine // the first maxExamples malformed lines
	malformed int64
	skipped   int64
	ready     chan struct{}
}

type badLine struct {
	line int // 1-based, within the block
	why  string
}

func (t *Reader) start() {
	t.started = true
	t.order = make(chan *block, blocksInFlight)
	t.work = make(chan *block, blocksInFlight)
	t.free = make(chan *block, blocksInFlight)
	t.stop = make(chan struct{})
	for range blocksInFlight {
		t.free <- &block{}
	}
	go t.read()
	for range max(1, runtime.GOMAXPROCS(0)) {
		go t.parse()
	}
}

// nextBlock returns the next block of requests in input order, or the error that ended the
// input (io.EOF at its end) once the blocks before it were returned. The block is valid until
// the next call: it is then reused.
func (t *Reader) nextBlock() (*block, error) {
	if !t.started {
		t.start()
	}
	if t.cur != nil {
		t.free <- t.cur
		t.cur = nil
	}
	if t.err != nil {
		return nil, t.err
	}
	b, ok := <-t.order
	if !ok {
		t.err = io.EOF
		return nil, t.err
	}
	<-b.ready
	for _, bad := range b.bad {
		if len(t.Examples) < maxExamples {
			t.Examples = append(t.Examples, fmt.Sprintf("%s:%d: %s", t.name, t.line+bad.line, bad.why))
		}
	}
	t.Malformed += b.malformed
	t.Skipped += b.skipped
	t.line += b.lines
	t.requests += int64(len(b.events))
	if why := t.notTraffic(); why != "" {
		t.err = fmt.Errorf("traffic %s: %s", t.name, why)
		return nil, t.err
	}
	switch {
	case b.err == nil:
	case b.errInLong:
		t.err = fmt.Errorf("traffic %s: %w", t.name, b.err)
	default:
		t.err = fmt.Errorf("traffic %s, line %d: %w", t.name, t.line+1, b.err)
	}
	t.cur = b
	return b, nil
}

// read cuts the input into blocks of whole lines and hands them to the workers and, in order,
// to Next. It ends the input with a block carrying the read error, if there was one.
func (t *Reader) read() {
	defer close(t.order)
	defer close(t.work)
	var tail []byte // the start of a line the previous block cut off
	for {
		var b *block
		select {
		case b = <-t.free:
		case <-t.stop:
			return
		}
		if cap(b.buf) < blockSize || cap(b.buf) > 4*blockSize { // new, or grown for a long line
			b.buf = make([]byte, 0, blockSize)
		}
		buf := append(b.buf[:0], tail...)
		tail = tail[:0]
		var err error
		scanned := 0 // buf[:scanned] holds no newline
		for {
			for len(buf) < cap(buf) && err == nil {
				var n int
				n, err = t.r.Read(buf[len(buf):cap(buf)])
				buf = buf[:len(buf)+n]
			}
			if err == io.EOF {
				break // the last line may lack its newline
			}
			nl := bytes.LastIndexByte(buf[scanned:], '\n')
			if err != nil {
				// Keep the whole lines read before the error; drop the partial one.
				buf = buf[:bytes.LastIndexByte(buf, '\n')+1]
				break
			}
			if nl >= 0 {
				tail = append(tail, buf[scanned+nl+1:]...)
				buf = buf[:scanned+nl+1]
				break
			}
			scanned = len(buf)
			if len(buf) > maxLine {
				// One line longer than maxLine: drain it without keeping it.
				b.buf, b.lines, b.long = buf[:0], 1, true
				buf, err = t.drain(buf[:0])
				tail = append(tail, buf...)
				if err != nil && err != io.EOF {
					b.err, b.errInLong = err, true
				}
				t.send(b)
				if err != nil {
					return
				}
				b = nil
				break
			}
			// A line longer than the block so far: grow the block.
			grown := make([]byte, len(buf), min(2*cap(buf), maxLine+blockSize))
			copy(grown, buf)
			buf = grown
		}
		if b == nil {
			continue
		}
		b.buf, b.lines, b.long = buf, 0, false
		if err != nil && err != io.EOF {
			b.err = err
		}
		t.send(b)
		if err != nil {
			return
		}
	}
}

// drain reads up to the end of the current line and returns what follows it in the last read.
func (t *Reader) drain(buf []byte) ([]byte, error) {
	drained := int64(maxLine)
	for {
		n, err := t.r.Read(buf[:cap(buf)])
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			if err == io.EOF {
				err = nil // what follows the line is read first; EOF comes again
			}
			return buf[i+1 : n], err
		}
		if err != nil {
			return nil, err
		}
		if drained += int64(n); drained > maxEndlessLine {
			return nil, errEndlessLine
		}
	}
}

func (t *Reader) send(b *block) {
	b.ready = make(chan struct{})
	t.order <- b // never blocks: the channels hold every block there is
	t.work <- b
}

// parse is a worker: it parses the lines of blocks.
func (t *Reader) parse() {
	var f auditlog.Fields
	w := newBlockWriter()
	for b := range t.work {
		w.start(b)
		b.bad, b.malformed, b.skipped = b.bad[:0], 0, 0
		bad := func(line int, why string) {
			b.malformed++
			if len(b.bad) < maxExamples {
				b.bad = append(b.bad, badLine{line, why})
			}
		}
		if b.long {
			bad(1, fmt.Sprintf("longer than %d MiB", maxLine>>20))
			w.finish()
			close(b.ready)
			continue
		}
		n := 0
		for rest := b.buf; len(rest) > 0; {
			line := rest
			if i := bytes.IndexByte(rest, '\n'); i >= 0 {
				line, rest = rest[:i+1], rest[i+1:]
			} else {
				rest = nil
			}
			n++
			if len(line) > maxLine {
				bad(n, fmt.Sprintf("longer than %d MiB", maxLine>>20))
				continue
			}
			line = bytes.TrimSpace(line)
			if len(line) == 0 || line[0] == '#' {
				continue
			}
			if t.format == FormatRequests {
				if req, ok, why := parseRequestLine(line); ok {
					w.add(auditFields{method: req.Method, uri: []byte(req.Path)})
				} else {
					bad(n, why)
				}
				continue
			}
			ev, ok, why, skipped := parseAuditLine(line, &f)
			switch {
			case ok:
				w.add(ev)
			case skipped:
				b.skipped++
			case why != "":
				bad(n, why)
			}
		}
		b.lines = n
		w.finish()
		close(b.ready)
	}
}
