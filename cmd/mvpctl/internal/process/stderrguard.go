package process

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/redact"
)

// What others write to the process's stderr — a kubeconfig's exec credential plugin, which
// client-go gives os.Stderr, and klog — reaches the user as kubectl shows it: line by line, as
// it comes (a device-code sign-in prompt must be seen while the plugin waits for it), on a
// terminal or not; but cleaned of credentials first (CleanForeign). mvpctl's own messages go
// to the real stderr directly.
const (
	// foreignHold is how long a line is held before it is shown, so that a token the plugin
	// prints and then returns is learned (from the request it authorises) before the line is
	// cleaned: the plugin's exit, client-go's decoding and the request take milliseconds.
	foreignHold = 500 * time.Millisecond
	// foreignLine is the longest line shown as one; a longer one is shown in pieces.
	foreignLine = 64 << 10
	// foreignHeld bounds what is held at once; past it the writer is made to wait (the pipe
	// fills and the plugin blocks), so memory stays bounded whatever others write.
	foreignHeld = 1 << 20
)

// CleanForeign is a line from others as it is shown: every credential the process knows
// (the kubeconfig's, the tokens learned from requests) and every secret shape redacted,
// control characters escaped (no escape sequence reaches the terminal).
func CleanForeign(line string) string {
	return apiclient.EscapeControl(redact.Shapes(redact.Process.Clean(line)))
}

// stderrGuard forwards what others write to os.Stderr to the real stderr, cleaned.
type stderrGuard struct {
	real   *os.File
	r, w   *os.File
	out    io.Writer
	now    func() time.Time
	hold   time.Duration
	chunks chan []byte
	flush  chan struct{} // closed by stop: show everything held at once
	done   chan struct{} // closed when everything read has been shown
	once   sync.Once
}

// guardStderr points os.Stderr at a pipe whose lines are shown on out, cleaned, each after
// foreignHold. Nil when no pipe can be made (others then write to stderr directly).
func guardStderr(out io.Writer) *stderrGuard {
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	g := &stderrGuard{real: os.Stderr, r: r, w: w, out: out, now: time.Now, hold: foreignHold,
		chunks: make(chan []byte, 4), flush: make(chan struct{}), done: make(chan struct{})}
	os.Stderr = w
	go g.read()
	go g.show()
	return g
}

// read passes what the pipe gives on, until every writer has closed it.
func (g *stderrGuard) read() {
	defer close(g.chunks)
	for {
		buf := make([]byte, 32<<10)
		n, err := g.r.Read(buf)
		if n > 0 {
			g.chunks <- buf[:n]
		}
		if err != nil {
			return
		}
	}
}

// heldLine is a line, or the start of one, waiting to be shown.
type heldLine struct {
	text     []byte
	at       time.Time // when its first byte came
	complete bool      // ends with a newline
}

// show holds each line foreignHold, then writes it cleaned; a line without its newline yet
// (a prompt such as "Password: ") is shown as it is once held that long.
func (g *stderrGuard) show() {
	defer close(g.done)
	var (
		held    []heldLine
		size    int
		flush   = g.flush
		chunks  = g.chunks
		timer   = time.NewTimer(time.Hour)
		flushed bool
	)
	defer timer.Stop()
	for {
		now := g.now()
		for len(held) > 0 && (flushed || now.Sub(held[0].at) >= g.hold) {
			h := held[0]
			held = held[1:]
			size -= len(h.text)
			line := CleanForeign(strings.TrimSuffix(string(h.text), "\r"))
			if h.complete {
				line += "\n"
			}
			io.WriteString(g.out, line)
		}
		if chunks == nil && (flushed || len(held) == 0) {
			return
		}
		if len(held) > 0 {
			timer.Reset(held[0].at.Add(g.hold).Sub(now))
		}
		in := chunks
		if size >= foreignHeld {
			in = nil // hold back the writer until lines have been shown
		}
		select {
		case b, ok := <-in:
			if !ok {
				chunks = nil
				flushed = true // every writer is gone: nothing more to learn by waiting
				continue
			}
			held, size = appendChunk(held, size, b, g.now())
		case <-flush:
			flush, flushed = nil, true
		case <-timer.C:
		}
	}
}

// appendChunk adds b to the held lines: to the last one while it has no newline, else as
// new lines, each at most foreignLine long.
func appendChunk(held []heldLine, size int, b []byte, at time.Time) ([]heldLine, int) {
	size += len(b)
	for len(b) > 0 {
		if n := len(held); n == 0 || held[n-1].complete {
			held = append(held, heldLine{at: at})
		}
		last := &held[len(held)-1]
		room := foreignLine - len(last.text)
		i := bytes.IndexByte(b, '\n')
		switch {
		case i >= 0 && i < room:
			last.text = append(last.text, b[:i]...)
			last.complete = true
			b = b[i+1:]
			size--
		case len(b) < room:
			last.text = append(last.text, b...)
			b = nil
		default:
			last.text = append(last.text, b[:room]...)
			last.complete = true // shown as a line of its own
			b = b[room:]
		}
	}
	return held, size
}

// stop restores os.Stderr and shows what is held, cleaned with everything learned by now. It
// waits at most wait for the last writers (ended by endChildren before) to close the pipe.
func (g *stderrGuard) stop(wait time.Duration) {
	if g == nil {
		return
	}
	g.once.Do(func() {
		os.Stderr = g.real
		g.w.Close()
		close(g.flush)
		select {
		case <-g.done:
		case <-time.After(wait):
		}
	})
}
