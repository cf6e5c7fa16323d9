package process

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a writer the guard's goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestAppendChunk(t *testing.T) {
	at := time.Unix(0, 0)
	long := strings.Repeat("x", foreignLine+10)
	for _, tt := range []struct {
		name     string
		chunks   []string
		want     []string // the held lines, "+" marking a complete one
		wantSize int
	}{
		{"one line", []string{"a\n"}, []string{"a+"}, 1},
		{"a prompt without its newline", []string{"Password: "}, []string{"Password: "}, 10},
		{"a line in two chunks", []string{"ab", "c\nd"}, []string{"abc+", "d"}, 4},
		{"two lines in one chunk", []string{"a\nb\n"}, []string{"a+", "b+"}, 2},
		{"a line longer than foreignLine is cut", []string{long}, []string{strings.Repeat("x", foreignLine) + "+", "xxxxxxxxxx"}, len(long)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var held []heldLine
			size := 0
			for _, c := range tt.chunks {
				held, size = appendChunk(held, size, []byte(c), at)
			}
			var got []string
			for _, h := range held {
				s := string(h.text)
				if h.complete {
					s += "+"
				}
				got = append(got, s)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || size != tt.wantSize {
				t.Errorf("held %q size %d, want %q size %d", got, size, tt.want, tt.wantSize)
			}
		})
	}
}

// TestStderrGuard: what others write to os.Stderr reaches the real stderr cleaned (secret
// shapes redacted, control characters escaped), a line at a time, and stop shows what is
// held and restores os.Stderr.
func TestStderrGuard(t *testing.T) {
	real := os.Stderr
	var out syncBuffer
	g := guardStderr(&out)
	if g == nil {
		t.Fatal("no pipe")
	}
	g.hold = 10 * time.Millisecond
	os.Stderr.WriteString("debug: SECRET_ENV=hunter2-plugin-secret\n")
	os.Stderr.WriteString("title \x1b]0;pwned\x07 done\n")
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "done") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	os.Stderr.WriteString("Password: ")
	g.stop(time.Second)
	if os.Stderr != real {
		t.Error("os.Stderr not restored")
	}
	got := out.String()
	if strings.Contains(got, "hunter2") || strings.Contains(got, "\x1b") || strings.Contains(got, "\x07") ||
		!strings.Contains(got, "debug: SECRET_ENV=[REDACTED]\n") || !strings.HasSuffix(got, "Password: ") {
		t.Errorf("shown %q", got)
	}
	g.stop(time.Second) // a second stop does nothing
}
