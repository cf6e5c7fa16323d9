package replay

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/klauspost/compress/gzip"
)

// Traffic formats.
const (
	FormatRequests = "requests" // one "METHOD PATH" a line
	FormatAuditLog = "audit"    // audit.k8s.io/v1 Event JSON lines
)

// TrafficRequest is one request read from a traffic source.
type TrafficRequest struct {
	Method    string
	Path      string
	UserAgent string
	// AuditID is the audit event's ID ("" for request lists). A request one server proxied to
	// another is logged by both with the same ID (docs/behaviour.md §9).
	AuditID string
	// Code is the response code (0 when the event has none); Received the
	// requestReceivedTimestamp (zero when absent or unreadable). They tell a proxied request's
	// two events apart: the proxying server received it first.
	Code     int
	Received time.Time

	// server is the Server of the reader it came from; received the raw timestamp.
	server   string
	received string
}

// Reader streams requests from a request list or an audit log, plain or gzip. A reader
// goroutine cuts the input into blocks of whole lines, workers (one per CPU) parse the blocks,
// and Next returns their requests in input order. A fixed number of blocks is in flight, so a
// log of any size replays in constant memory.
type Reader struct {
	// Server names the apiserver that wrote the log; "" when unknown (a log merged from
	// several servers, or one not named).
	Server string

	name   string
	format string
	r      *bufio.Reader
	closer io.Closer
	// line counts the lines of the blocks Next has taken.
	line int
	// Malformed counts unreadable lines; Examples keeps the first few, with line numbers.
	Malformed int64
	Examples  []string
	// Skipped counts audit events of stages other than ResponseComplete and Panic: one
	// request logs up to three events, and only its final one is counted.
	Skipped int64

	// requests counts the requests of the blocks Next has taken (notTraffic).
	requests int64

	started bool
	order   chan *block // blocks in input order, for Next
	work    chan *block // blocks to parse, for the workers
	free    chan *block
	stop    chan struct{}
	cur     *block
	pos     int
	err     error
}

// Open opens a traffic file ("-" is not supported: replay reads it once per run, which
// a pipe allows, but errors must name a file). gzip is recognised by its magic bytes.
func Open(path, format string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("traffic %s: %w", path, errors.Unwrap(err))
	}
	tr, err := NewReader(f, path, format)
	if err != nil {
		f.Close()
		return nil, err
	}
	tr.closer = f
	return tr, nil
}

// NewReader reads from r; name is used in messages.
func NewReader(r io.Reader, name, format string) (*Reader, error) {
	return newTrafficReader(r, name, format, defaultTrafficLimits)
}

// newTrafficReader is NewReader holding lim, counted after gzip's expansion.
func newTrafficReader(r io.Reader, name, format string, lim trafficLimits) (*Reader, error) {
	if format != FormatRequests && format != FormatAuditLog {
		return nil, fmt.Errorf("traffic %s: unknown format %q", name, format)
	}
	// The blocks are read straight from r: bufio copies only reads smaller than its buffer,
	// and the reader asks for most of a block (blockSize) at a time.
	br := bufio.NewReaderSize(r, readBuffer)
	r = br
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("traffic %s: bad gzip: %w", name, err)
		}
		r = gz
	}
	br = bufio.NewReaderSize(newBoundedReader(r, lim), readBuffer)
	return &Reader{name: name, format: format, r: br}, nil
}

// Close stops the reader's goroutines and closes the underlying file, if Open opened
// one.
func (t *Reader) Close() error {
	if t.stop != nil {
		select {
		case <-t.stop:
		default:
			close(t.stop)
		}
	}
	if t.closer != nil {
		return t.closer.Close()
	}
	return nil
}

// Next returns the next request, or io.EOF. Malformed lines are counted and skipped; only a
// read error (a truncated gzip stream, an I/O error) is returned.
func (t *Reader) Next() (TrafficRequest, error) {
	for {
		if b := t.cur; b != nil && t.pos < len(b.events) {
			e := &b.events[t.pos]
			t.pos++
			return TrafficRequest{Method: e.method, Path: e.uri, UserAgent: e.agent, AuditID: e.auditID, Code: e.code,
				Received: parseTimestamp(e.received), received: e.received}, nil
		}
		b, err := t.nextBlock()
		if err != nil {
			return TrafficRequest{}, err
		}
		t.cur, t.pos = b, 0
	}
}
