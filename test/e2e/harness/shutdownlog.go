package harness

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// slowStop is how long a graceful stop may take before the harness logs the server's own
// account of it: a stop that waits for nothing takes a second or two, even on a busy machine.
const slowStop = 10 * time.Second

// shutdownMarkers pick, from a kube-apiserver's log, the lines that tell what a stop waited
// for: its graceful-termination events, the HTTP server's shutdown, the watches it started
// (at --v=3 or more) and the requests it answered (httplog, at --v=3 or more).
var shutdownMarkers = []string{"graceful-termination", "shutdown", "Stopped listening", "Starting watch", `"HTTP"`, "timeout", "terminat"}

// fileSize is the size of path now, or 0 when it cannot be read.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// shutdownLines returns the lines of the log at path from byte offset on that match a
// shutdown marker, at most max of them (the last ones, where the stop ends).
func shutdownLines(path string, offset int64, max int) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return fmt.Sprintf("(cannot seek %s: %v)", path, err)
	}
	b, err := io.ReadAll(io.LimitReader(f, 64<<20))
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	var picked []string
	for _, line := range strings.Split(string(b), "\n") {
		for _, m := range shutdownMarkers {
			if strings.Contains(line, m) {
				picked = append(picked, line)
				break
			}
		}
	}
	if len(picked) > max {
		picked = append([]string{fmt.Sprintf("(%d earlier lines left out)", len(picked)-max)}, picked[len(picked)-max:]...)
	}
	return strings.Join(picked, "\n")
}
