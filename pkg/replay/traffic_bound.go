package replay

import (
	"bytes"
	"fmt"
	"io"
	"time"
)

// The bounds on one traffic file (a request list or an audit log), counted once expanded:
// bytes, lines and the time spent reading it. A day of a busy apiserver's audit log at
// Metadata level is a few GiB and a few million lines, read at about 150 MB/s
// (docs/faults.md has the figures).
const (
	MaxTrafficBytes = 64 << 30
	MaxTrafficLines = 250_000_000
	MaxTrafficTime  = 15 * time.Minute
)

// A file that is mostly not traffic is not read to its end: reading stops once
// MaxLeadingMalformed lines are malformed and they outnumber the requests read (audit events
// of other stages count as requests), and at a line longer than maxEndlessLine (lines longer
// than maxLine are otherwise skipped as malformed, not kept).
const (
	MaxLeadingMalformed = 1000
	maxEndlessLine      = 4 * maxLine
)

// trafficLimits are the bounds a Reader holds (tests make them small).
type trafficLimits struct {
	bytes, lines int64
	time         time.Duration
}

var defaultTrafficLimits = trafficLimits{bytes: MaxTrafficBytes, lines: MaxTrafficLines, time: MaxTrafficTime}

// boundedReader fails a read past its limits, naming the bound passed. Its time runs from
// its first read (replay reads the file after the simulation, not when it is opened).
type boundedReader struct {
	r     io.Reader
	lim   trafficLimits
	began time.Time
	n     int64
	lines int64
}

func newBoundedReader(r io.Reader, lim trafficLimits) *boundedReader {
	return &boundedReader{r: r, lim: lim}
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.began.IsZero() {
		b.began = time.Now()
	}
	n, err := b.r.Read(p)
	b.n += int64(n)
	b.lines += int64(bytes.Count(p[:n], []byte{'\n'}))
	switch {
	case b.n > b.lim.bytes:
		return n, b.past(fmt.Sprintf("more than %s", byteSize(b.lim.bytes)))
	case b.lines > b.lim.lines:
		return n, b.past(fmt.Sprintf("more than %d lines", b.lim.lines))
	case time.Since(b.began) > b.lim.time:
		return n, b.past(fmt.Sprintf("read for more than %s", b.lim.time))
	}
	return n, err
}

func (b *boundedReader) past(what string) error {
	return fmt.Errorf("%s: not read further (a traffic file is read up to %s, %d lines and %s, once expanded)",
		what, byteSize(b.lim.bytes), b.lim.lines, b.lim.time)
}

// byteSize is n in the largest binary unit that divides it: "64 GiB", "16 MiB", "100 B".
func byteSize(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}

// notTraffic says why reading stops when malformed lines outnumber the requests read; ""
// while reading goes on.
func (t *Reader) notTraffic() string {
	if t.Malformed < MaxLeadingMalformed || t.Malformed <= t.requests+t.Skipped {
		return ""
	}
	what := "a request list"
	if t.format == FormatAuditLog {
		what = "an audit log"
	}
	return fmt.Sprintf("%d of its first %d lines are malformed, %d are requests: not read further (not %s?)",
		t.Malformed, t.line, t.requests+t.Skipped, what)
}

// errEndlessLine ends the input at a line longer than maxEndlessLine.
var errEndlessLine = fmt.Errorf("a line longer than %d MiB: not read further (not a request list or an audit log? lines longer than %d MiB are skipped as malformed)", maxEndlessLine>>20, maxLine>>20)
