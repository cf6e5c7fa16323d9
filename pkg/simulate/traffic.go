package simulate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/mvpctl/mvpctl/pkg/auditlog"
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

// TrafficReader streams requests from a request list or an audit log, plain or gzip. A reader
// goroutine cuts the input into blocks of whole lines, workers (one per CPU) parse the blocks,
// and Next returns their requests in input order. A fixed number of blocks is in flight, so a
// log of any size replays in constant memory.
type TrafficReader struct {
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

	started bool
	order   chan *block // blocks in input order, for Next
	work    chan *block // blocks to parse, for the workers
	free    chan *block
	stop    chan struct{}
	cur     *block
	pos     int
	err     error
}

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

// OpenTraffic opens a traffic file ("-" is not supported: replay reads it once per run, which
// a pipe allows, but errors must name a file). gzip is recognised by its magic bytes.
func OpenTraffic(path, format string) (*TrafficReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("traffic %s: %w", path, errors.Unwrap(err))
	}
	tr, err := NewTrafficReader(f, path, format)
	if err != nil {
		f.Close()
		return nil, err
	}
	tr.closer = f
	return tr, nil
}

// NewTrafficReader reads from r; name is used in messages.
func NewTrafficReader(r io.Reader, name, format string) (*TrafficReader, error) {
	if format != FormatRequests && format != FormatAuditLog {
		return nil, fmt.Errorf("traffic %s: unknown format %q", name, format)
	}
	// The blocks are read straight from r: bufio copies only reads smaller than its buffer,
	// and the reader asks for most of a block (blockSize) at a time.
	br := bufio.NewReaderSize(r, readBuffer)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("traffic %s: bad gzip: %w", name, err)
		}
		br = bufio.NewReaderSize(gz, readBuffer)
	}
	return &TrafficReader{name: name, format: format, r: br}, nil
}

// Close stops the reader's goroutines and closes the underlying file, if OpenTraffic opened
// one.
func (t *TrafficReader) Close() error {
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

func (t *TrafficReader) start() {
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

// Next returns the next request, or io.EOF. Malformed lines are counted and skipped; only a
// read error (a truncated gzip stream, an I/O error) is returned.
func (t *TrafficReader) Next() (TrafficRequest, error) {
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

// nextBlock returns the next block of requests in input order, or the error that ended the
// input (io.EOF at its end) once the blocks before it were returned. The block is valid until
// the next call: it is then reused.
func (t *TrafficReader) nextBlock() (*block, error) {
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
func (t *TrafficReader) read() {
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
func (t *TrafficReader) drain(buf []byte) ([]byte, error) {
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
	}
}

func (t *TrafficReader) send(b *block) {
	b.ready = make(chan struct{})
	t.order <- b // never blocks: the channels hold every block there is
	t.work <- b
}

// parse is a worker: it parses the lines of blocks.
func (t *TrafficReader) parse() {
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

func parseRequestLine(line []byte) (TrafficRequest, bool, string) {
	f := strings.Fields(string(line))
	if len(f) != 2 {
		return TrafficRequest{}, false, "want METHOD PATH"
	}
	return TrafficRequest{Method: strings.ToUpper(f[0]), Path: f[1]}, true, ""
}

// auditEvent is the part of an audit.k8s.io/v1 Event replay needs.
type auditEvent struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	UserAgent  string `json:"userAgent"`
	AuditID    string `json:"auditID"`
}

// verbMethod maps the audit event's Kubernetes verb back to the HTTP method, which is what the
// apiserver's RequestInfoFactory parses. Non-resource requests log the lowercase HTTP method.
func verbMethod(verb []byte) (string, bool) {
	switch string(verb) {
	case "get", "list", "watch":
		return "GET", true
	case "create":
		return "POST", true
	case "update":
		return "PUT", true
	case "patch":
		return "PATCH", true
	case "delete", "deletecollection":
		return "DELETE", true
	case "head":
		return "HEAD", true
	case "post":
		return "POST", true
	case "put":
		return "PUT", true
	case "options":
		return "OPTIONS", true
	}
	return "", false
}

// auditFields is what replay takes from an audit event. The byte slices alias the line or the
// scanner's buffer: copy them before the next line. received is the raw
// requestReceivedTimestamp, read by parseTimestamp only when a join needs it.
type auditFields struct {
	method                        string
	uri, agent, auditID, received []byte
	code                          int
}

// parseAuditLine reads an event with auditlog.Scan, and with encoding/json (the reference) when
// Scan declines the line: one that is malformed or unusual. skipped reports an event of a
// non-final stage.
func parseAuditLine(line []byte, f *auditlog.Fields) (ev auditFields, ok bool, why string, skipped bool) {
	if !auditlog.Scan(line, f) {
		return parseAuditLineJSON(line)
	}
	ev, ok, why, skipped = auditRequest(f.Kind, f.APIVersion, f.Stage, f.Verb, f.RequestURI, f.UserAgent, f.AuditID)
	if ok {
		if len(f.Code) > 0 {
			ev.code, _ = strconv.Atoi(string(f.Code))
		}
		ev.received = f.RequestReceivedTimestamp
	}
	return ev, ok, why, skipped
}

// parseTimestamp reads an RFC 3339 timestamp, or returns the zero time.
func parseTimestamp(s string) time.Time {
	if len(s) == 0 {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// auditJoinFields are the fields of an event that join a proxied request's two events. They
// are decoded apart from auditEvent so that an odd value among them never makes a line
// malformed: it only leaves the join without them.
type auditJoinFields struct {
	Received       string `json:"requestReceivedTimestamp"`
	ResponseStatus struct {
		Code int32 `json:"code"`
	} `json:"responseStatus"`
}

func parseAuditLineJSON(line []byte) (auditFields, bool, string, bool) {
	var ev auditEvent
	if err := json.Unmarshal(line, &ev); err != nil {
		return auditFields{}, false, "not JSON: " + clip(err.Error()), false
	}
	f, ok, why, skipped := auditRequest([]byte(ev.Kind), []byte(ev.APIVersion), []byte(ev.Stage), []byte(ev.Verb), []byte(ev.RequestURI), []byte(ev.UserAgent), []byte(ev.AuditID))
	if ok {
		var j auditJoinFields
		if json.Unmarshal(line, &j) == nil {
			f.code, f.received = int(j.ResponseStatus.Code), []byte(j.Received)
		}
	}
	return f, ok, why, skipped
}

func auditRequest(kind, apiVersion, stage, verb, uri, agent, auditID []byte) (auditFields, bool, string, bool) {
	if string(kind) != "Event" || !bytes.HasPrefix(apiVersion, []byte("audit.k8s.io/")) {
		return auditFields{}, false, fmt.Sprintf("not an audit Event (kind %q, apiVersion %q)", kind, apiVersion), false
	}
	if len(stage) != 0 && string(stage) != "ResponseComplete" && string(stage) != "Panic" {
		return auditFields{}, false, "", true
	}
	method, ok := verbMethod(verb)
	if !ok || len(uri) == 0 {
		return auditFields{}, false, fmt.Sprintf("event without a known verb and requestURI (verb %q)", verb), false
	}
	return auditFields{method: method, uri: uri, agent: agent, auditID: auditID}, true, "", false
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
