package replay

// The reader as it was before the parallel, field-scanning one (traffic*.go): one line at a time,
// every audit event decoded whole with encoding/json. It is the reference the differential
// tests compare the new reader with.

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

// refReader streams requests from a request list or an audit log, plain or gzip, holding
// one line at a time: a log of any size replays in constant memory.
type refReader struct {
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

// openRefTraffic opens a traffic file ("-" is not supported: replay reads it once per run, which
// a pipe allows, but errors must name a file). gzip is recognised by its magic bytes.
func openRefTraffic(path, format string) (*refReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("traffic %s: %w", path, errors.Unwrap(err))
	}
	tr, err := newRefReader(f, path, format)
	if err != nil {
		f.Close()
		return nil, err
	}
	tr.closer = f
	return tr, nil
}

// newRefReader reads from r; name is used in messages.
func newRefReader(r io.Reader, name, format string) (*refReader, error) {
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
	return &refReader{name: name, format: format, r: br}, nil
}

// Close closes the underlying file, if openRefTraffic opened one.
func (t *refReader) Close() error {
	if t.closer != nil {
		return t.closer.Close()
	}
	return nil
}

// Next returns the next request, or io.EOF. Malformed lines are counted and skipped; only a
// read error (a truncated gzip stream, an I/O error) is returned.
func (t *refReader) Next() (TrafficRequest, error) {
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
			req, ok, why = t.parseAuditLineRef(line)
		}
		if ok {
			return req, nil
		}
		if why != "" {
			t.malformed(why)
		}
	}
}

func (t *refReader) readLine() ([]byte, error) {
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

func (t *refReader) malformed(why string) {
	t.Malformed++
	if len(t.Examples) < maxExamples {
		t.Examples = append(t.Examples, fmt.Sprintf("%s:%d: %s", t.name, t.line, why))
	}
}

func (t *refReader) parseAuditLineRef(line []byte) (TrafficRequest, bool, string) {
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
	method, ok := verbMethod([]byte(ev.Verb))
	if !ok || ev.RequestURI == "" {
		return TrafficRequest{}, false, fmt.Sprintf("event without a known verb and requestURI (verb %q)", ev.Verb)
	}
	var j auditJoinFields
	_ = json.Unmarshal(line, &j)
	return TrafficRequest{Method: method, Path: ev.RequestURI, UserAgent: ev.UserAgent, Received: parseTimestamp(j.Received)}, true, ""
}
