package cli

import (
	"io"

	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/internal/kubeflags"
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
