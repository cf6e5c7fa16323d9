package simulate

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
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
}

// TrafficReader streams requests from a request list or an audit log, plain or gzip, holding
// one line at a time: a log of any size replays in constant memory.
type TrafficReader struct {
	name   string
	format string
	r      *bufio.Reader
	closer io.Closer
	line   int
	// Malformed counts unreadable lines; Examples keeps the first few, with line numbers.
	Malformed int64
	Examples  []string
	// Skipped counts audit events of stages other than ResponseComplete and Panic: one
	// request logs up to three events, and only its final one is counted.
	Skipped int64
}

// maxLine bounds one line. Audit events at RequestResponse level carry whole objects; a
// longer line is counted as malformed, not buffered.
const maxLine = 16 << 20

const maxExamples = 5

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
	br := bufio.NewReaderSize(r, 1<<20)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("traffic %s: bad gzip: %w", name, err)
		}
		br = bufio.NewReaderSize(gz, 1<<20)
	}
	return &TrafficReader{name: name, format: format, r: br}, nil
}

// Close closes the underlying file, if OpenTraffic opened one.
func (t *TrafficReader) Close() error {
	if t.closer != nil {
		return t.closer.Close()
	}
	return nil
}

// Next returns the next request, or io.EOF. Malformed lines are counted and skipped; only a
// read error (a truncated gzip stream, an I/O error) is returned.
func (t *TrafficReader) Next() (TrafficRequest, error) {
	for {
		line, err := t.readLine()
		if err != nil {
			return TrafficRequest{}, err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		var req TrafficRequest
		var ok bool
		var why string
		if t.format == FormatRequests {
			req, ok, why = parseRequestLine(line)
		} else {
			req, ok, why = t.parseAuditLine(line)
		}
		if ok {
			return req, nil
		}
		if why != "" {
			t.malformed(why)
		}
	}
}

func (t *TrafficReader) readLine() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := t.r.ReadSlice('\n')
		if len(buf)+len(chunk) > maxLine {
			// Drain the rest of the line without keeping it.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = t.r.ReadSlice('\n')
			}
			t.line++
			t.malformed(fmt.Sprintf("longer than %d MiB", maxLine>>20))
			if err != nil && err != io.EOF {
				return nil, fmt.Errorf("traffic %s: %w", t.name, err)
			}
			if err == io.EOF {
				return nil, io.EOF
			}
			buf = buf[:0]
			continue
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			t.line++
			return buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			if len(buf) == 0 {
				return nil, io.EOF
			}
			t.line++
			return buf, nil
		default:
			return nil, fmt.Errorf("traffic %s, line %d: %w", t.name, t.line+1, err)
		}
	}
}

func (t *TrafficReader) malformed(why string) {
	t.Malformed++
	if len(t.Examples) < maxExamples {
		t.Examples = append(t.Examples, fmt.Sprintf("%s:%d: %s", t.name, t.line, why))
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
}

// verbMethods maps the audit event's Kubernetes verb back to the HTTP method, which is what the
// apiserver's RequestInfoFactory parses.
var verbMethods = map[string]string{
	"get": "GET", "list": "GET", "watch": "GET", "create": "POST", "update": "PUT",
	"patch": "PATCH", "delete": "DELETE", "deletecollection": "DELETE",
	// Non-resource requests log the lowercase HTTP method.
	"head": "HEAD", "post": "POST", "put": "PUT", "options": "OPTIONS",
}

func (t *TrafficReader) parseAuditLine(line []byte) (TrafficRequest, bool, string) {
	var ev auditEvent
	if err := json.Unmarshal(line, &ev); err != nil {
		return TrafficRequest{}, false, "not JSON: " + clip(err.Error())
	}
	if ev.Kind != "Event" || !strings.HasPrefix(ev.APIVersion, "audit.k8s.io/") {
		return TrafficRequest{}, false, fmt.Sprintf("not an audit Event (kind %q, apiVersion %q)", ev.Kind, ev.APIVersion)
	}
	if ev.Stage != "" && ev.Stage != "ResponseComplete" && ev.Stage != "Panic" {
		t.Skipped++
		return TrafficRequest{}, false, ""
	}
	method, ok := verbMethods[ev.Verb]
	if !ok || ev.RequestURI == "" {
		return TrafficRequest{}, false, fmt.Sprintf("event without a known verb and requestURI (verb %q)", ev.Verb)
	}
	return TrafficRequest{Method: method, Path: ev.RequestURI, UserAgent: ev.UserAgent}, true, ""
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
