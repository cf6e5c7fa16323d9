package cli

import (
	"io"
	"sync"

	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/kubeflags"
	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/output"
)

// Env is what the plumbing needs of the process around a command: its stdin, its stderr
// (progress and warnings), the connection flags, and how a warning is said once.
type Env struct {
	In     io.Reader
	ErrOut io.Writer
	// ErrIsTerminal enables progress lines.
	ErrIsTerminal bool
	ConfigFlags   *kubeflags.Flags
	// Warn says a warning on stderr, once per run.
	Warn func(string)
}

// WarnLoweredTrust warns, every command and every time, when the kubeconfig turns TLS
// verification off or names a plain-HTTP server.
func (e Env) WarnLoweredTrust(cfgs ...*rest.Config) {
	for _, cfg := range cfgs {
		for _, w := range apiclient.TrustWarnings(cfg) {
			e.Warn(w)
		}
	}
}

// Warnings says each warning once per run, however many layers say it (discovery and probe
// both warn of the same server); safe for several goroutines (probe warns from each).
type Warnings struct {
	mu   sync.Mutex
	said map[string]bool
}

// Say writes "warning: msg" on out, unless msg was said before.
func (w *Warnings) Say(out io.Writer, msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.said[msg] {
		return
	}
	if w.said == nil {
		w.said = map[string]bool{}
	}
	w.said[msg] = true
	output.Fprintf(out, "warning: %s\n", msg)
}
