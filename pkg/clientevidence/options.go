package clientevidence

import (
	"time"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/redact"
)

// Options say where client evidence is read: the server through which the cluster-wide lists
// are read alike (pkg/discover's Options.Evidence gives the kubeconfig's own).
type Options struct {
	// Connect builds the client of that server; red learns the credentials it sends.
	Connect func(red *redact.Redactor) (*apiclient.Client, error)
	// Warn is told of what is skipped (nil: nothing is said).
	Warn func(string)
	// Now is the clock (time.Now when nil): each read's ReadAt.
	Now func() time.Time
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}
