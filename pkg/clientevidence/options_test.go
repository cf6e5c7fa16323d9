package clientevidence

import (
	"time"

	"k8s.io/client-go/rest"

	"github.com/mvpctl/mvpctl/internal/apiclient"
	"github.com/mvpctl/mvpctl/pkg/redact"
)

// through is what pkg/discover's Options.Evidence gives for a kubeconfig whose server is host.
func through(host string) Options {
	return Options{Connect: func(red *redact.Redactor) (*apiclient.Client, error) {
		base, err := apiclient.NormalizeBase(host)
		if err != nil {
			return nil, err
		}
		return apiclient.New(&rest.Config{Host: host}, base, apiclient.Options{Timeout: 10 * time.Second, Redactor: red})
	}}
}
