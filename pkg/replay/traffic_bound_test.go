package replay

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// readAll reads every request of r and returns how many and the error that ended the input.
func readAll(t *testing.T, r *Reader) (int, error) {
	t.Helper()
	defer r.Close()
	n := 0
	for {
		_, err := r.Next()
		if err != nil {
			if err == io.EOF {
				return n, nil
			}
			return n, err
		}
		n++
	}
}

// endless repeats a line forever.
type endless struct{ line []byte }

func (e endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		n += copy(p[n:], e.line)
	}
	return n, nil
}

func TestTrafficReaderBounds(t *testing.T) {
	many := strings.Repeat("GET /api/v1/pods\n", 10000) // 170,000 bytes
	wide := trafficLimits{bytes: MaxTrafficBytes, lines: MaxTrafficLines, time: time.Hour}
	for _, tc := range []struct {
		name   string
		in     func(t *testing.T) io.Reader
		format string
		lim    trafficLimits
		want   string // "" when the whole input is read
	}{
		{"within every bound", func(*testing.T) io.Reader { return strings.NewReader(many) }, FormatRequests, wide, ""},
		{"bytes", func(*testing.T) io.Reader { return strings.NewReader(many) }, FormatRequests,
			trafficLimits{bytes: 64 << 10, lines: MaxTrafficLines, time: time.Hour},
			"more than 64 KiB: not read further (a traffic file is read up to 64 KiB, 250000000 lines and 1h0m0s, once expanded)"},
		{"bytes once expanded", func(*testing.T) io.Reader { return bytes.NewReader(gzipped([]byte(many))) }, FormatRequests,
			trafficLimits{bytes: 64 << 10, lines: MaxTrafficLines, time: time.Hour}, "more than 64 KiB: not read further"},
		{"lines", func(*testing.T) io.Reader { return strings.NewReader(many) }, FormatRequests,
			trafficLimits{bytes: MaxTrafficBytes, lines: 5000, time: time.Hour}, "more than 5000 lines: not read further"},
		{"time", func(*testing.T) io.Reader { return endless{[]byte("GET /api/v1/pods\n")} }, FormatRequests,
			trafficLimits{bytes: MaxTrafficBytes, lines: MaxTrafficLines, time: time.Nanosecond}, "read for more than 1ns: not read further"},
		{"an endless line (/dev/zero)", func(*testing.T) io.Reader { return endless{[]byte{0}} }, FormatAuditLog, wide,
			"a line longer than 64 MiB: not read further"},
		{"mostly malformed lines (/dev/urandom)", func(*testing.T) io.Reader { return endless{[]byte("x\nGET /api/v1/pods\n\x01\x02\n")} }, FormatRequests, wide,
			"lines are malformed, "},
		{"mostly malformed audit events", func(*testing.T) io.Reader { return endless{[]byte("{}\n")} }, FormatAuditLog, wide,
			"lines are malformed, 0 are requests: not read further (not an audit log?)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := newTrafficReader(tc.in(t), "f.log", tc.format, tc.lim)
			if err != nil {
				t.Fatal(err)
			}
			n, err := readAll(t, r)
			if tc.want == "" {
				if err != nil || n != 10000 {
					t.Fatalf("read %d requests, err %v; want 10000 and no error", n, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "traffic f.log") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err %v, want one line naming f.log and %q", err, tc.want)
			}
			if errors.Is(err, io.EOF) {
				t.Fatalf("err %v is an end of input", err)
			}
		})
	}
}
